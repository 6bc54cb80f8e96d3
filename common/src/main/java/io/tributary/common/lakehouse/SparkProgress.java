package io.tributary.common.lakehouse;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.spark.SparkStageInfo;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.JavaSparkStatusTracker;
import org.apache.spark.sql.SparkSession;

/**
 * Says how long work is getting on while it runs: every {@link #INTERVAL}, the time so far and, for each Spark stage
 * running, its tasks done of all and the time its pace leaves (a stage is the unit Spark knows the total of; a job
 * of several stages shows them one after another). Used by rebuild, reingest, maintenance and long micro-batches, so
 * that nothing runs a minute without a word. Closing it stops the lines.
 */
public final class SparkProgress implements AutoCloseable {
  /** How often a line is printed. */
  public static final Duration INTERVAL = Duration.ofSeconds(10);

  private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(runnable -> {
    Thread thread = new Thread(runnable, "tributary-progress");
    thread.setDaemon(true);
    return thread;
  });

  /** The lines of named work running now; while there are any, a background line says nothing. */
  private static final AtomicInteger NAMED_WORK = new AtomicInteger();

  private final long started = System.nanoTime();
  private final ScheduledFuture<?> ticks;
  private final boolean background;

  private SparkProgress(SparkSession spark, String what, Consumer<String> out, Duration interval,
      boolean background) {
    JavaSparkStatusTracker tracker = JavaSparkContext.fromSparkContext(spark.sparkContext()).statusTracker();
    long every = interval.toMillis();
    this.background = background;
    if (!background) {
      NAMED_WORK.incrementAndGet();
    }
    this.ticks = TIMER.scheduleAtFixedRate(() -> {
      String stages = stages(tracker, System.currentTimeMillis());
      if (!background || (NAMED_WORK.get() == 0 && !stages.isEmpty())) {
        out.accept(what + ": " + elapsedSeconds() + " s so far" + stages);
      }
    }, every, every, TimeUnit.MILLISECONDS);
  }

  /** Starts the lines for {@code what} (e.g. "rebuilding lake.silver.orders"), written to {@code out}. */
  public static SparkProgress start(SparkSession spark, String what, Consumer<String> out) {
    return start(spark, what, out, INTERVAL);
  }

  public static SparkProgress start(SparkSession spark, String what, Consumer<String> out, Duration interval) {
    return new SparkProgress(spark, what, out, interval, false);
  }

  /**
   * Lines for a whole program (a benchmark) that runs Spark work of its own between named pieces of work: they are
   * printed only while Spark runs stages and no line of named work ({@link #start}) is running, so that nothing
   * is said twice.
   */
  public static SparkProgress inBackground(SparkSession spark, String what, Consumer<String> out) {
    return inBackground(spark, what, out, INTERVAL);
  }

  static SparkProgress inBackground(SparkSession spark, String what, Consumer<String> out, Duration interval) {
    return new SparkProgress(spark, what, out, interval, true);
  }

  /** {@code , stage 12: 30 of 48 tasks, about 24 s left in it} for each running stage. */
  static String stages(JavaSparkStatusTracker tracker, long nowMs) {
    StringBuilder text = new StringBuilder();
    for (int id : tracker.getActiveStageIds()) {
      SparkStageInfo stage = tracker.getStageInfo(id);
      if (stage == null) {
        continue;
      }
      int done = stage.numCompletedTasks();
      int all = stage.numTasks();
      text.append(String.format(", stage %d: %d of %d tasks", id, done, all));
      long running = nowMs - stage.submissionTime();
      if (done > 0 && done < all && stage.submissionTime() > 0 && running > 0) {
        text.append(String.format(", about %d s left in it", Math.max(1, running * (all - done) / done / 1000)));
      }
    }
    return text.toString();
  }

  public long elapsedSeconds() {
    return (System.nanoTime() - started) / 1_000_000_000;
  }

  /** Seconds since the start, with a fraction. */
  public double elapsed() {
    return (System.nanoTime() - started) / 1e9;
  }

  @Override
  public void close() {
    if (ticks.cancel(false) && !background) {
      NAMED_WORK.decrementAndGet();
    }
  }
}
