package io.tributary.launcher;

import io.tributary.common.config.LocalFolders;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import org.apache.spark.sql.SparkSession;

/** The session of a launcher command; the master comes from spark-submit or bin/tributary, never from here. */
final class Sessions {
  private static volatile boolean validating;

  private Sessions() {}

  static SparkSession start(TributaryConfig config, String job) {
    LocalFolders.check(config);
    if (validating) {
      throw new Validated();
    }
    return LakehouseSession.builder(config, job).getOrCreate();
  }

  /** From now on, a command stops where it would start Spark: everything it checks before that has passed. */
  static void validateOnly(boolean on) {
    validating = on;
  }

  /** A command in validation mode reached the start of Spark: its arguments, config and models are valid. */
  static final class Validated extends RuntimeException {
    Validated() {
      super("valid", null, false, false);
    }
  }
}
