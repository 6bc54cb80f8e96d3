package io.tributary.silver;

import java.util.Map;
import org.apache.iceberg.Snapshot;

/**
 * The rows a snapshot holds, from its summary: no scan, so it works on a table whose files are damaged. A merge-on-read
 * table's {@code total-records} counts the rows of its data files, deleted ones included; its position deletes (and
 * deletion vectors) are subtracted.
 */
final class SnapshotRows {
  private SnapshotRows() {}

  static long of(Snapshot snapshot) {
    Map<String, String> summary = snapshot.summary();
    return Long.parseLong(summary.getOrDefault("total-records", "0"))
        - Long.parseLong(summary.getOrDefault("total-position-deletes", "0"));
  }
}
