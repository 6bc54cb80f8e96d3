package io.tributary.launcher;

import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import org.apache.spark.sql.SparkSession;

/** The session of a launcher command; the master comes from spark-submit or bin/tributary, never from here. */
final class Sessions {
  private Sessions() {}

  static SparkSession start(TributaryConfig config, String job) {
    return LakehouseSession.builder(config, job).getOrCreate();
  }
}
