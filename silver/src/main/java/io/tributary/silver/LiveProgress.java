package io.tributary.silver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.OptionalLong;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * How far in bronze a silver table's stream has applied, by the bronze snapshot its newest batch ended in (its
 * commits record the end, {@link CommittedBatches#BRONZE_END}), as that snapshot's sequence number. A rebuild
 * compares it with how far its shadow has caught up before it switches: a live stream that applied newer bronze
 * changes meanwhile would otherwise have readers see those changes vanish until the stream caught up again.
 */
final class LiveProgress {
  private static final ObjectMapper JSON = new ObjectMapper();

  private LiveProgress() {}

  /** The sequence number of bronze's current snapshot (0 for an empty table): how far a catch-up starting now reads. */
  static long bronzeNow(Table bronze) {
    bronze.refresh();
    Snapshot current = bronze.currentSnapshot();
    return current == null ? 0 : current.sequenceNumber();
  }

  /**
   * The sequence number of the bronze snapshot the newest batch committed to {@code silver} ended in; empty when no
   * commit records one, or its snapshot is no longer in bronze (expired: older than anything a catch-up reads).
   */
  static OptionalLong applied(Table silver, Table bronze) {
    silver.refresh();
    bronze.refresh();
    for (Snapshot snapshot : SnapshotUtil.currentAncestors(silver)) {
      String end = snapshot.summary().get(CommittedBatches.BRONZE_END);
      if (end == null) {
        continue;
      }
      try {
        JsonNode offset = JSON.readTree(end);
        Snapshot ended = offset.has("snapshot_id") ? bronze.snapshot(offset.get("snapshot_id").asLong()) : null;
        return ended == null ? OptionalLong.empty() : OptionalLong.of(ended.sequenceNumber());
      } catch (IOException e) {
        return OptionalLong.empty();
      }
    }
    return OptionalLong.empty();
  }
}
