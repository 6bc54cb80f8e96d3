package io.tributary.silver;

import io.tributary.common.lakehouse.DependencyUnavailableException;
import io.tributary.common.lakehouse.StreamRuns;
import java.util.OptionalLong;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.relocated.com.google.common.collect.Iterables;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a silver stream that has never run starts: with everything bronze holds now, read as one batch at bronze's
 * current snapshot and merged like any micro-batch, then streaming from the snapshots after it.
 *
 * <p>Left to itself, a new Iceberg stream starts at the oldest snapshot still kept and reads only the files each
 * later snapshot added; once maintenance has compacted and expired bronze, the rows in rewritten files would never
 * reach a new entity or a rebuilt table. (Iceberg's own "every file of a snapshot" start loses files when its first
 * micro-batch spans into later snapshots, so it is not used.)
 *
 * <p>Crash-safe in each step: the bronze snapshot is recorded in the checkpoint before the load (a rerun loads the
 * same one), the load commits with the stream's query id and batch {@value #BATCH_ID} (a rerun skips it), and the
 * stream's start is written last.
 */
final class InitialLoad {
  private static final Logger LOG = LoggerFactory.getLogger(InitialLoad.class);

  /** The batch id the initial load commits as; the stream's own batches count from 0. */
  static final long BATCH_ID = -1;

  static final String SNAPSHOT_FILE = "tributary-initial-load-snapshot";

  private InitialLoad() {}

  /** Loads bronze into the entity's table if the stream has never run; returns the bronze snapshot loaded. */
  static OptionalLong runIfNew(SparkSession spark, CheckpointFiles checkpoint, Table bronze, String bronzeName,
      MicroBatchTarget merge, String streamName) {
    if (checkpoint.hasStarted()) {
      return OptionalLong.empty();
    }
    bronze.refresh();
    OptionalLong recorded = checkpoint.readNumber(SNAPSHOT_FILE);
    Snapshot snapshot = recorded.isPresent() ? bronze.snapshot(recorded.getAsLong()) : null;
    if (recorded.isPresent() && snapshot == null && merge.committed(spark, checkpoint.queryId(), BATCH_ID)) {
      // Loaded, but the stream's start was not written before the snapshot expired: where to go on is unknown.
      throw new IllegalStateException(streamName + ": the initial load of " + bronzeName + " at snapshot "
          + recorded.getAsLong() + " was committed, but the snapshot expired before the stream started, so where it"
          + " should go on is unknown. Rebuild the table (tributary rebuild), or drop it and delete its checkpoint "
          + checkpoint.location());
    }
    if (snapshot == null) {
      snapshot = bronze.currentSnapshot();
      if (snapshot == null) {
        return OptionalLong.empty(); // bronze is empty: the stream starts at its first snapshot, which has it all
      }
      checkpoint.writeNumber(SNAPSHOT_FILE, snapshot.snapshotId());
    }
    String streamId = checkpoint.queryId();
    long started = System.nanoTime();
    // Bronze is append-only: its snapshot's records are its rows.
    long bronzeRows = Long.parseLong(snapshot.summary().getOrDefault(SnapshotSummary.TOTAL_RECORDS_PROP, "0"));
    LOG.info("{}: a new stream; loading {} bronze rows of {} at snapshot {} in one batch", streamName, bronzeRows,
        bronzeName, snapshot.snapshotId());
    Dataset<Row> rows = spark.sql("SELECT * FROM " + bronzeName + " VERSION AS OF " + snapshot.snapshotId());
    try {
      merge.apply(rows, streamId, BATCH_ID);
      StreamRuns.countBatch(spark, streamName, bronzeRows);
    } catch (DependencyUnavailableException e) {
      throw e; // one line for the operator, as from a streamed batch
    } catch (Exception e) {
      throw new IllegalStateException(streamName + ": the initial load from " + bronzeName + " failed: "
          + e.getMessage(), e);
    }
    checkpoint.writeInitialOffset(snapshot.snapshotId(), addedFiles(bronze, snapshot));
    LOG.info("{}: initial load done in {} s; streaming from the snapshots after {}", streamName,
        (System.nanoTime() - started) / 1_000_000_000, snapshot.snapshotId());
    return OptionalLong.of(snapshot.snapshotId());
  }

  /**
   * Whether a stream that has planned no batch yet has nothing to read: no snapshot that added files came after the
   * one its initial offset is in (or, for a stream that started on an empty bronze table, none at all). Iceberg
   * cannot run a {@code --once} stream in that state (it fails computing where to stop).
   */
  static boolean nothingAfter(CheckpointFiles checkpoint, Table bronze) {
    if (checkpoint.lastBatch("offsets").isPresent()) {
      return false;
    }
    OptionalLong start = checkpoint.initialOffsetSnapshot();
    if (start.isEmpty()) {
      return false;
    }
    bronze.refresh();
    for (Snapshot snapshot : org.apache.iceberg.util.SnapshotUtil.currentAncestors(bronze)) {
      if (snapshot.snapshotId() == start.getAsLong()) {
        return true;
      }
      if (org.apache.iceberg.DataOperations.APPEND.equals(snapshot.operation()) && addedFiles(bronze, snapshot) > 0) {
        return false;
      }
    }
    return start.getAsLong() < 0; // Iceberg's "start of the table": nothing with files in it yet
  }

  /** The files the snapshot added: a stream offset at this position is past all of them. */
  static long addedFiles(Table table, Snapshot snapshot) {
    String added = snapshot.summary().get(SnapshotSummary.ADDED_FILES_PROP);
    return added != null ? Long.parseLong(added) : Iterables.size(snapshot.addedDataFiles(table.io()));
  }
}
