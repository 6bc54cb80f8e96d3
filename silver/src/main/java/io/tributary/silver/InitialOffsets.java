package io.tributary.silver;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * Where a new silver stream starts: at every file of bronze's latest append snapshot. Left to itself, a new Iceberg
 * stream starts at the oldest snapshot still kept and reads only the files each later snapshot added, skipping
 * compaction's replace snapshots; once maintenance has expired and compacted bronze, rows in rewritten files would
 * never reach a new entity or a rebuilt table. The initial offset Iceberg keeps in the checkpoint
 * ({@code sources/0/offsets/0}) is therefore written first, with {@code scan_all_files}.
 */
final class InitialOffsets {
  private InitialOffsets() {}

  /** Writes the initial offset of a stream that has never run; returns whether it did. */
  static boolean startFromAllFiles(String checkpoint, Table bronze, Configuration hadoop) {
    bronze.refresh();
    Snapshot current = latestAppend(bronze);
    if (current == null) {
      return false; // an empty table: Iceberg starts at its first snapshot, which holds everything
    }
    try {
      Path root = new Path(checkpoint);
      FileSystem fs = root.getFileSystem(hadoop);
      Path initial = new Path(root, "sources/0/offsets/0");
      if (fs.exists(new Path(root, "offsets")) || fs.exists(initial)) {
        return false;
      }
      try (OutputStream out = fs.create(initial, false)) {
        out.write(("{\"version\":1,\"snapshot_id\":" + current.snapshotId()
            + ",\"position\":0,\"scan_all_files\":true}").getBytes(StandardCharsets.UTF_8));
      }
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the initial offset of the stream checkpoint " + checkpoint, e);
    }
  }

  /**
   * The newest snapshot that is not a compaction: Iceberg's stream passes over replace snapshots, even as its start,
   * and a replace changes no rows, so the table's rows are all in this snapshot's files and the appends after it.
   * Maintenance keeps it (see StreamPositions in the maintenance module).
   */
  static Snapshot latestAppend(Table table) {
    for (Snapshot snapshot : SnapshotUtil.currentAncestors(table)) {
      if (!DataOperations.REPLACE.equals(snapshot.operation())) {
        return snapshot;
      }
    }
    return null;
  }
}
