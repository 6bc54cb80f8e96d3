package io.tributary.common.lakehouse;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.HistoryEntry;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.UpdateProperties;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Moves an Iceberg table back to an earlier snapshot in one commit, after a preview of what that changes. The
 * snapshots after it stay in the table's metadata (until expiry), so a rollback can itself be undone by rolling
 * "back" to the snapshot that was current before it.
 */
public final class TableRollback {
  private static final int SAMPLE = 5;

  /** What a rollback changes: the snapshots, the row counts, and samples of the rows that go and come back. */
  public record Preview(String table, long currentSnapshot, Instant currentTime, long targetSnapshot,
      Instant targetTime, long currentRows, long targetRows, long rowsRemoved, long rowsRestored,
      List<String> sampleRemoved, List<String> sampleRestored, List<String> comparedColumns) {

    public String describe() {
      StringBuilder text = new StringBuilder();
      text.append("Rollback of ").append(table).append('\n');
      text.append(String.format("  current: snapshot %d (%s), %,d rows%n", currentSnapshot, currentTime,
          currentRows));
      text.append(String.format("  target:  snapshot %d (%s), %,d rows%n", targetSnapshot, targetTime, targetRows));
      text.append(String.format("  rows that would disappear: %,d; rows that would come back: %,d (compared on %d"
          + " columns)%n", rowsRemoved, rowsRestored, comparedColumns.size()));
      sampleRemoved.forEach(row -> text.append("    - ").append(row).append('\n'));
      sampleRestored.forEach(row -> text.append("    + ").append(row).append('\n'));
      return text.toString();
    }
  }

  private TableRollback() {}

  /**
   * The snapshot a rollback targets: the given id (any snapshot the table still has, also one from before a
   * rebuild replaced the table), or the one the table showed at the given time (its snapshot log).
   */
  public static long target(Table table, OptionalLong snapshotId, Optional<Instant> asOf) {
    if (snapshotId.isPresent()) {
      if (table.snapshot(snapshotId.getAsLong()) == null) {
        throw new IllegalArgumentException(table.name() + " has no snapshot " + snapshotId.getAsLong()
            + " (expired, or never of this table); see SELECT snapshot_id, committed_at FROM <table>.snapshots");
      }
      return snapshotId.getAsLong();
    }
    long millis = asOf.orElseThrow(() -> new IllegalArgumentException("give a snapshot id or a time")).toEpochMilli();
    Long found = null;
    for (HistoryEntry entry : table.history()) {
      if (entry.timestampMillis() <= millis && table.snapshot(entry.snapshotId()) != null) {
        found = entry.snapshotId();
      }
    }
    if (found == null) {
      throw new IllegalArgumentException(table.name() + " showed no snapshot that is still kept at " + asOf.get()
          + "; see SELECT made_current_at, snapshot_id FROM <table>.history");
    }
    return found;
  }

  /** Compares the current content with the target's (as multisets of rows, on the columns both have). */
  public static Preview preview(SparkSession spark, String sqlName, Table table, long target) {
    table.refresh();
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      throw new IllegalStateException(sqlName + " has no current snapshot");
    }
    return compare(spark, sqlName, current.snapshotId(), Instant.ofEpochMilli(current.timestampMillis()), target,
        Instant.ofEpochMilli(table.snapshot(target).timestampMillis()));
  }

  /**
   * Compares a table's content at {@code current} with its content at {@code target} (Iceberg snapshot ids or Delta
   * versions, read with {@code VERSION AS OF}).
   */
  public static Preview compare(SparkSession spark, String sqlName, long current, Instant currentTime, long target,
      Instant targetTime) {
    Dataset<Row> now = spark.sql("SELECT * FROM " + sqlName + " VERSION AS OF " + current);
    Dataset<Row> then = spark.sql("SELECT * FROM " + sqlName + " VERSION AS OF " + target);
    List<String> columns = new ArrayList<>(Arrays.asList(now.columns()));
    columns.retainAll(Arrays.asList(then.columns()));
    columns.remove("_updated_at"); // when a row was written, not what it says
    String[] selected = columns.stream().map(column -> "`" + column + "`").toArray(String[]::new);
    Dataset<Row> removed = now.selectExpr(selected).exceptAll(then.selectExpr(selected)).localCheckpoint();
    Dataset<Row> restored = then.selectExpr(selected).exceptAll(now.selectExpr(selected)).localCheckpoint();
    try {
      return new Preview(sqlName, current, currentTime, target, targetTime, now.count(), then.count(),
          removed.count(), restored.count(), removed.toJSON().takeAsList(SAMPLE), restored.toJSON().takeAsList(SAMPLE),
          List.copyOf(columns));
    } finally {
      LocalCheckpoints.release(removed);
      LocalCheckpoints.release(restored);
    }
  }

  /** Makes {@code target} the current snapshot, sets {@code properties} and removes {@code removed}, in one commit. */
  public static void apply(Table table, long target, Map<String, String> properties, List<String> removed) {
    table.refresh();
    Transaction transaction = table.newTransaction();
    transaction.manageSnapshots().setCurrentSnapshot(target).commit();
    if (!properties.isEmpty() || !removed.isEmpty()) {
      UpdateProperties update = transaction.updateProperties();
      properties.forEach(update::set);
      removed.stream().filter(table.properties()::containsKey).forEach(update::remove);
      update.commit();
    }
    transaction.commitTransaction();
  }
}
