package io.tributary.common.lakehouse;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;

/** Session settings that hold for one statement: set before it, and put back as they were after it. */
public final class SessionSettings {
  private SessionSettings() {}

  /**
   * Runs {@code statement} with {@code settings} set on the session, then puts the earlier values back (or unsets
   * what was not set), so that the session's later statements plan and commit as before.
   */
  public static <T> T with(SparkSession spark, Map<String, String> settings, Callable<T> statement) throws Exception {
    Map<String, Optional<String>> previous = new HashMap<>();
    settings.forEach((name, value) -> {
      previous.put(name, spark.conf().contains(name) ? Optional.of(spark.conf().get(name)) : Optional.empty());
      spark.conf().set(name, value);
    });
    try {
      return statement.call();
    } finally {
      previous.forEach((name, value) -> {
        if (value.isPresent()) {
          spark.conf().set(name, value.get());
        } else {
          spark.conf().unset(name);
        }
      });
    }
  }
}
