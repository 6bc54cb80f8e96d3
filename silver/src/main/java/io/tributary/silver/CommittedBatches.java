package io.tributary.silver;

import io.tributary.common.lakehouse.StreamCommits;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * Makes foreachBatch effectively once: every commit a silver stream makes carries its stream id and batch id in
 * the Iceberg snapshot summary, and a batch whose id is already there is skipped when Spark replays it after a
 * crash (written to the table, not yet to the checkpoint).
 */
final class CommittedBatches {
  static final String STREAM_ID = StreamCommits.STREAM_ID;
  static final String BATCH_ID = StreamCommits.BATCH_ID;

  private CommittedBatches() {}

  static Map<String, String> properties(String streamId, long batchId) {
    return Map.of(STREAM_ID, streamId, BATCH_ID, String.valueOf(batchId));
  }

  /** Whether the newest commit of this stream in the table's history is this batch or a later one. */
  static boolean isCommitted(Table table, String streamId, long batchId) {
    table.refresh();
    for (Snapshot snapshot : SnapshotUtil.currentAncestors(table)) {
      Map<String, String> summary = snapshot.summary();
      if (streamId.equals(summary.get(STREAM_ID))) {
        return Long.parseLong(summary.get(BATCH_ID)) >= batchId;
      }
    }
    return false;
  }
}
