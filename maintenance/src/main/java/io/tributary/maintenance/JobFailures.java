package io.tributary.maintenance;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.JobFailed;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobEnd;
import org.apache.spark.sql.SparkSession;

/**
 * The failures of the Spark jobs that end while it is open. Iceberg's compaction with partial progress logs why a
 * file group could not be rewritten and goes on, so its result says how many files failed but not why; the job's
 * own failure (a full disk, a missing file) is the cause an operator needs.
 */
final class JobFailures implements AutoCloseable {
  private final SparkContext context;
  private final List<Exception> failures = new ArrayList<>();
  private final SparkListener listener = new SparkListener() {
    @Override
    public void onJobEnd(SparkListenerJobEnd end) {
      if (end.jobResult() instanceof JobFailed failed) {
        synchronized (failures) {
          failures.add(failed.exception());
        }
      }
    }
  };

  private JobFailures(SparkContext context) {
    this.context = context;
    context.addSparkListener(listener);
  }

  static JobFailures watch(SparkSession spark) {
    return new JobFailures(spark.sparkContext());
  }

  /** The first job failure seen so far (listener events arrive asynchronously: after the action, allow a moment). */
  Optional<Exception> first() {
    long deadline = System.nanoTime() + 2_000_000_000L;
    while (true) {
      synchronized (failures) {
        if (!failures.isEmpty() || System.nanoTime() > deadline) {
          return failures.stream().findFirst();
        }
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    }
  }

  @Override
  public void close() {
    context.removeSparkListener(listener);
  }
}
