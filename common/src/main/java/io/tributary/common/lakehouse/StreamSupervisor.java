package io.tributary.common.lakehouse;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a layer's streaming queries until they have caught up ({@code once}) or until one is stopped, restarting a
 * query from its checkpoint when it failed for a reason a restart fixes (its sink must be idempotent per batch).
 * The limit counts restarts in a row: a query that completes a batch after a restart starts counting afresh. Any
 * other failure stops every query and is rethrown as the stream explains it.
 */
public final class StreamSupervisor {
  private static final Logger LOG = LoggerFactory.getLogger(StreamSupervisor.class);
  private static final Duration LISTENER_WAIT = Duration.ofSeconds(10);

  /** One supervised stream. */
  public interface Supervised {
    String name();

    /**
     * Starts (or restarts) the query from its checkpoint; in a run until caught up ({@code once}), null when there is
     * nothing to read.
     */
    StreamingQuery start();

    /** The failure as the user should see it, when it is not restarted. */
    default RuntimeException explain(StreamingQueryException failure) {
      return new IllegalStateException(name() + " failed: " + failure.getMessage(), failure);
    }
  }

  /**
   * Which failures a restart fixes.
   *
   * @param reason why a failure is retryable, in words for the log; empty when it is fatal
   * @param maxRestartsInARow restarts of one query without a completed batch in between
   * @param backoff the pause before the n-th restart in a row is {@code n * backoff}
   */
  public record RestartPolicy(Function<Throwable, Optional<String>> reason, int maxRestartsInARow, Duration backoff) {}

  private final SparkSession spark;
  private final RestartPolicy policy;

  public StreamSupervisor(SparkSession spark, RestartPolicy policy) {
    this.spark = spark;
    this.policy = policy;
  }

  /** Runs the streams until each has caught up with what its source holds now. */
  public StreamRuns.Outcome runUntilCaughtUp(List<? extends Supervised> streams) {
    return counted(streams, true);
  }

  /** Runs the streams until one is stopped (or fails for good). */
  public StreamRuns.Outcome runContinuously(List<? extends Supervised> streams) {
    return counted(streams, false);
  }

  private StreamRuns.Outcome counted(List<? extends Supervised> streams, boolean once) {
    try (StreamRuns runs = StreamRuns.count(spark)) {
      run(streams, once);
      // Progress events arrive on the listener bus after the batch: let the last ones in.
      try {
        spark.sparkContext().listenerBus().waitUntilEmpty(LISTENER_WAIT.toMillis());
      } catch (java.util.concurrent.TimeoutException busy) {
        LOG.warn("the run's last progress events did not arrive within {} s; its counts may miss them",
            LISTENER_WAIT.toSeconds());
      }
      return runs.outcome(streams.stream().map(Supervised::name).toList());
    }
  }

  private void run(List<? extends Supervised> streams, boolean once) {
    List<StreamingQuery> queries = new ArrayList<>();
    int[] restarts = new int[streams.size()];
    try {
      for (int i = 0; i < streams.size(); i++) {
        queries.add(start(streams.get(i), restarts, i));
      }
      boolean[] done = new boolean[queries.size()];
      while (true) {
        if (queries.stream().anyMatch(query -> query != null)) {
          awaitAnyTermination();
        }
        boolean allDone = true;
        for (int i = 0; i < queries.size(); i++) {
          StreamingQuery query = queries.get(i);
          if (query == null) {
            done[i] = true; // caught up already
            continue;
          }
          if (query.isActive()) {
            if (query.lastProgress() != null) {
              restarts[i] = 0;
            }
            allDone = false;
            continue;
          }
          if (done[i]) {
            continue;
          }
          if (query.exception().isEmpty() || interruptedByStop(query.exception().get())) {
            if (!once) {
              LOG.info("{} was stopped; stopping the other streams", query.name());
              return;
            }
            done[i] = true;
            continue;
          }
          StreamingQueryException failure = query.exception().get();
          Optional<String> reason = policy.reason().apply(failure);
          if (reason.isEmpty() || restarts[i] >= policy.maxRestartsInARow()) {
            throw streams.get(i).explain(failure);
          }
          restarts[i]++;
          LOG.warn("{} failed ({}); restarting it from its checkpoint ({} of {})", query.name(), reason.get(),
              restarts[i], policy.maxRestartsInARow());
          queries.set(i, restart(streams.get(i), restarts, i));
          allDone = false;
        }
        if (allDone) {
          return;
        }
      }
    } finally {
      queries.stream().filter(query -> query != null).forEach(StreamSupervisor::stopQuietly);
    }
  }

  /**
   * Starts a failed stream again after its pause. A start that fails for a retryable reason too (a broker still down
   * while the stream checks its offsets) counts as one more restart in a row.
   */
  private StreamingQuery restart(Supervised stream, int[] restarts, int index) {
    pause(policy.backoff().multipliedBy(restarts[index]));
    return start(stream, restarts, index);
  }

  /**
   * Starts a stream; a start that fails for a retryable reason (a service its first batch needs still down) is
   * tried again after a growing pause, each try counting as a restart in a row.
   */
  private StreamingQuery start(Supervised stream, int[] restarts, int index) {
    while (true) {
      try {
        return stream.start();
      } catch (RuntimeException failed) {
        Optional<String> reason = policy.reason().apply(failed);
        if (reason.isEmpty() || restarts[index] >= policy.maxRestartsInARow()) {
          throw failed;
        }
        restarts[index]++;
        LOG.warn("{} could not start ({}); trying again ({} of {})", stream.name(), reason.get(), restarts[index],
            policy.maxRestartsInARow());
        pause(policy.backoff().multipliedBy(restarts[index]));
      }
    }
  }

  /**
   * A query stopped while its thread sleeps (a trigger wait, a commit retry's back-off) can end with the interrupt
   * as its exception: that is a stop, not a failure.
   */
  private static boolean interruptedByStop(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof InterruptedException || cause instanceof java.nio.channels.ClosedByInterruptException) {
        return true;
      }
    }
    return false;
  }

  private void awaitAnyTermination() {
    try {
      // Polling with a timeout, then resetting: a query that ends between two polls is still seen on the next one.
      spark.streams().awaitAnyTermination(1000);
    } catch (StreamingQueryException failed) {
      // Inspected per query by the caller.
    }
    spark.streams().resetTerminated();
  }

  private static void pause(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while waiting to restart a stream", e);
    }
  }

  private static void stopQuietly(StreamingQuery query) {
    try {
      query.stop();
    } catch (Exception e) {
      LOG.warn("Stopping {} failed: {}", query.name(), e.getMessage());
    }
  }
}
