package io.tributary.silver;

import io.tributary.common.lakehouse.StreamCommits;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * Makes foreachBatch effectively once: every commit a silver stream makes carries its stream id, its batch id and
 * where in bronze the batch ends (the Iceberg streaming offset Spark planned it to) in the snapshot summary. A batch
 * is skipped only when that very batch, with that very end, is committed already: Spark replaying it after a crash
 * (written to the table, not yet to the checkpoint). A batch number the table holds with another end was planned
 * again over another range (the checkpoint is behind its table: restored from a backup, its last files lost); it is
 * applied, since applying a change twice leaves the same state and quarantine keeps one row per record.
 */
final class CommittedBatches {
  static final String STREAM_ID = StreamCommits.STREAM_ID;
  static final String BATCH_ID = StreamCommits.BATCH_ID;
  /** The bronze position the batch ends at, as Spark's checkpoint holds it ({@code offsets/N}). */
  static final String BRONZE_END = "tributary.bronze-end";

  private CommittedBatches() {}

  static Map<String, String> properties(String streamId, long batchId, Optional<String> bronzeEnd) {
    Map<String, String> properties = new HashMap<>(Map.of(STREAM_ID, streamId, BATCH_ID, String.valueOf(batchId)));
    bronzeEnd.ifPresent(end -> properties.put(BRONZE_END, end));
    return Map.copyOf(properties);
  }

  /** Whether the newest commit of this stream in the table's history is this batch or a later one. */
  static boolean isCommitted(Table table, String streamId, long batchId) {
    return newest(table, streamId).map(snapshot -> batchOf(snapshot) >= batchId).orElse(false);
  }

  /**
   * Whether the table holds this batch as planned now: its own commit records the same bronze end (a commit
   * written before ends were recorded counts as the same when its batch is the stream's newest).
   */
  static boolean isReplay(Table table, String streamId, long batchId, Optional<String> bronzeEnd) {
    Optional<Snapshot> newest = newest(table, streamId);
    if (newest.isEmpty() || batchOf(newest.get()) < batchId) {
      return false;
    }
    for (Snapshot snapshot : SnapshotUtil.currentAncestors(table)) {
      if (streamId.equals(snapshot.summary().get(STREAM_ID)) && batchOf(snapshot) == batchId) {
        String recorded = snapshot.summary().get(BRONZE_END);
        return recorded == null ? snapshot.snapshotId() == newest.get().snapshotId()
            : Objects.equals(recorded, bronzeEnd.orElse(null));
      }
    }
    return false;
  }

  private static long batchOf(Snapshot snapshot) {
    return Long.parseLong(snapshot.summary().get(BATCH_ID));
  }

  private static Optional<Snapshot> newest(Table table, String streamId) {
    table.refresh();
    for (Snapshot snapshot : SnapshotUtil.currentAncestors(table)) {
      if (streamId.equals(snapshot.summary().get(STREAM_ID))) {
        return Optional.of(snapshot);
      }
    }
    return Optional.empty();
  }
}
