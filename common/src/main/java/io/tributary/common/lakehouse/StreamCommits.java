package io.tributary.common.lakehouse;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * The snapshot-summary keys by which a streaming writer marks its commits (silver records its stream id and batch
 * id, so that a replayed batch is recognised), and where each stream's latest commit is.
 */
public final class StreamCommits {
  public static final String STREAM_ID = "tributary.stream-id";
  public static final String BATCH_ID = "tributary.batch-id";

  private StreamCommits() {}

  /** Stream id → the newest snapshot, in the current table's history, that this stream committed. */
  public static Map<String, Snapshot> latestPerStream(Table table) {
    Map<String, Snapshot> latest = new LinkedHashMap<>();
    for (Snapshot snapshot : SnapshotUtil.currentAncestors(table)) {
      String stream = snapshot.summary().get(STREAM_ID);
      if (stream != null) {
        latest.putIfAbsent(stream, snapshot);
      }
    }
    return latest;
  }
}
