package io.tributary.common.lakehouse;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fault-injection point for the crash tests and the chaos benchmark: the moment a micro-batch has committed to its
 * table and Spark has not yet written the batch to its checkpoint's commit log. A crash there is the one that makes a
 * restarted stream replay a batch the table already holds, and it lasts milliseconds, so a kill aimed at it from
 * outside needs the window held open. Off unless the JVM runs with
 * {@code -D}{@value #PROPERTY}{@code =MILLIS}; then every batch logs {@value #MARKER} and waits that long.
 */
public final class CommitWindowPause {
  public static final String PROPERTY = "tributary.fault.pause-after-table-commit-ms";
  /** The start of the line logged when the window opens; a test watching the log kills the process on it. */
  public static final String MARKER = "fault point: batch written, Spark's checkpoint commit not yet:";

  private static final Logger LOG = LoggerFactory.getLogger(CommitWindowPause.class);
  private static final Duration PAUSE = Duration.ofMillis(Long.getLong(PROPERTY, 0));

  private CommitWindowPause() {}

  /**
   * Called when a foreachBatch body has returned: after its table commit, or after nothing at all for a batch with
   * nothing to write (silver's batch of quarantined records only, say), where a kill is one between batches.
   */
  public static void hold(String stream, long batchId) throws InterruptedException {
    if (PAUSE.isZero()) {
      return;
    }
    LOG.warn("{} {} batch {}; holding it {} ms", MARKER, stream, batchId, PAUSE.toMillis());
    Thread.sleep(PAUSE.toMillis());
  }
}
