package io.tributary.common.lakehouse;

import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fault-injection point for the tests: the moment a micro-batch has decided what to write from its table's state
 * and has not committed it yet. Two writers on one table race there (a job started twice, a scheduler's retry while
 * the first run still runs), and the race lasts as long as a write, so a test holds one writer in it while the other
 * commits. Off unless the JVM runs with {@code -D}{@value #PROPERTY}{@code =FILE}; then every batch logs
 * {@value #MARKER} and waits while that file exists, so the test decides when it goes on.
 */
public final class PlannedBatchHold {
  public static final String PROPERTY = "tributary.fault.hold-before-table-commit-while";
  /** The start of the line logged when a batch is held; a test watching the log acts on it. */
  public static final String MARKER = "fault point: batch planned, table commit not yet:";

  private static final Logger LOG = LoggerFactory.getLogger(PlannedBatchHold.class);
  private static final String RELEASE_FILE = System.getProperty(PROPERTY, "");

  private PlannedBatchHold() {}

  /** Called after a batch has read its table's state and before it commits what it decided from it. */
  public static void hold(String stream, long batchId) throws InterruptedException {
    if (RELEASE_FILE.isEmpty() || !Files.exists(Path.of(RELEASE_FILE))) {
      return;
    }
    LOG.warn("{} {} batch {}; holding it while {} exists", MARKER, stream, batchId, RELEASE_FILE);
    while (Files.exists(Path.of(RELEASE_FILE))) {
      Thread.sleep(100);
    }
  }
}
