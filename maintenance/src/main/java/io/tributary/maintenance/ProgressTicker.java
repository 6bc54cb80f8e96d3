package io.tributary.maintenance;

import java.io.PrintStream;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.spark.SparkStageInfo;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.JavaSparkStatusTracker;
import org.apache.spark.sql.SparkSession;

/**
 * Prints how a long operation is getting on: every interval, the elapsed time and the tasks done of the Spark
 * stages running (compaction runs one stage per file group).
 */
final class ProgressTicker implements AutoCloseable {
  private final ScheduledExecutorService timer;
  private final long started = System.nanoTime();

  private ProgressTicker(ScheduledExecutorService timer) {
    this.timer = timer;
  }

  static ProgressTicker start(SparkSession spark, String what, PrintStream out, long intervalSeconds) {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "maintenance-progress");
      thread.setDaemon(true);
      return thread;
    });
    ProgressTicker ticker = new ProgressTicker(timer);
    timer.scheduleAtFixedRate(() -> out.println("      ... " + what + ": " + ticker.elapsedSeconds() + " s"
        + stages(JavaSparkContext.fromSparkContext(spark.sparkContext()).statusTracker())), intervalSeconds, intervalSeconds, TimeUnit.SECONDS);
    return ticker;
  }

  private static String stages(JavaSparkStatusTracker tracker) {
    StringBuilder text = new StringBuilder();
    for (int id : tracker.getActiveStageIds()) {
      SparkStageInfo stage = tracker.getStageInfo(id);
      if (stage != null) {
        text.append(String.format(", stage %d: %d/%d tasks", id, stage.numCompletedTasks(), stage.numTasks()));
      }
    }
    return text.toString();
  }

  long elapsedSeconds() {
    return (System.nanoTime() - started) / 1_000_000_000;
  }

  double elapsed() {
    return (System.nanoTime() - started) / 1e9;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
