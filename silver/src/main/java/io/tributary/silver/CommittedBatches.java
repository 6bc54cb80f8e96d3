package io.tributary.silver;

import io.tributary.common.lakehouse.StreamCommits;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Makes foreachBatch effectively once: every commit a silver stream makes carries its stream id, its batch id and
 * where in bronze the batch ends (the streaming offset Spark planned it to): in Iceberg's snapshot summary, in Delta's
 * commit metadata (see {@link SilverTable#commit}). A batch
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
  static boolean isCommitted(SilverTable table, String streamId, long batchId) {
    table.refresh();
    return table.newestBatch(streamId).orElse(Long.MIN_VALUE) >= batchId;
  }

  /**
   * Whether the table holds this batch as planned now: its own commit records the same bronze end (a commit
   * written before ends were recorded counts as the same when its batch is the stream's newest).
   */
  static boolean isReplay(SilverTable table, String streamId, long batchId, Optional<String> bronzeEnd) {
    table.refresh();
    if (table.newestBatch(streamId).orElse(Long.MIN_VALUE) < batchId) {
      return false;
    }
    return table.commitOf(streamId, batchId)
        .map(commit -> commit.bronzeEnd().isEmpty()
            ? table.newestCommit(streamId).map(newest -> newest.version() == commit.version()).orElse(false)
            : commit.bronzeEnd().equals(bronzeEnd))
        .orElse(false);
  }
}
