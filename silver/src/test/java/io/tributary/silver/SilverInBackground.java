package io.tributary.silver;

import io.tributary.common.config.TributaryConfig;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.sql.SparkSession;

/** A continuous silver job for tests, in a thread of its own (public for the maintenance tests). */
public final class SilverInBackground {
  private SilverInBackground() {}

  /** Starts the job; a failure lands in {@code failure}. The job ends when its queries are stopped. */
  public static Thread start(SparkSession spark, TributaryConfig config, AtomicReference<Throwable> failure) {
    Thread silver = new Thread(() -> {
      try {
        new SilverMergeJob(spark, config).runContinuously();
      } catch (Throwable e) {
        failure.set(e);
      }
    }, "silver-under-test");
    silver.start();
    return silver;
  }
}
