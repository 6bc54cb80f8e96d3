package io.tributary.silver;

import io.tributary.common.config.TableFormat;
import io.tributary.common.lakehouse.DeltaCommitMetadata;
import io.tributary.common.lakehouse.StreamCommits;
import io.tributary.common.lakehouse.TableAddress;
import io.tributary.common.lakehouse.TableRollback;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** An entity's rows in the shared quarantine table as they were at a moment (for a rollback or a partial rebuild). */
final class QuarantineRows {
  private QuarantineRows() {}

  /**
   * The entity's quarantine rows as they were when the silver commit a rewind goes back to was made, in either table
   * format. A stream's batch appends its quarantine rows before it merges, so at the time of its silver commit the
   * quarantine holds exactly the rows of that batch and the ones before it. A rebuild's switch commits the other way
   * round (the live table first, then the entity's quarantine rows, both recording the shadow's last batch), so the
   * quarantine's own commit of the same batch, when it is later, is the moment taken.
   */
  static Dataset<Row> asOf(SparkSession spark, TableAddress quarantine, String entity, StreamRewind.Rewind rewind) {
    if (quarantine.format() == TableFormat.ICEBERG) {
      return icebergAsOf(spark, quarantine.sqlName(), entity, rewind);
    }
    Dataset<Row> now = spark.read().format("delta").load(quarantine.deltaPath());
    List<DeltaCommitMetadata.Commit> history = DeltaCommitMetadata.history(spark, quarantine.deltaPath(), 0,
        StreamCommits.STREAM_ID);
    long moment = Math.max(rewind.committedMillis(), history.stream().filter(entry -> sameBatch(entry.recorded(),
        rewind)).mapToLong(entry -> entry.time().toEpochMilli()).max().orElse(Long.MIN_VALUE));
    OptionalLong version = history.stream().filter(entry -> entry.time().toEpochMilli() <= moment)
        .mapToLong(DeltaCommitMetadata.Commit::version).max();
    if (version.isEmpty()) {
      return now.limit(0); // the quarantine table came later: nothing was quarantined then
    }
    return spark.read().format("delta").option("versionAsOf", version.getAsLong()).load(quarantine.deltaPath())
        .where(org.apache.spark.sql.functions.col("entity").equalTo(entity));
  }

  /** Whether a commit recorded the batch the rewind goes back to. */
  private static boolean sameBatch(Map<String, String> recorded, StreamRewind.Rewind rewind) {
    return rewind.streamId().equals(recorded.get(StreamCommits.STREAM_ID))
        && String.valueOf(rewind.batch()).equals(recorded.get(StreamCommits.BATCH_ID));
  }

  private static Dataset<Row> icebergAsOf(SparkSession spark, String quarantine, String entity,
      StreamRewind.Rewind rewind) {
    Table table;
    try {
      table = Spark3Util.loadIcebergTable(spark, quarantine);
    } catch (Exception e) {
      throw new IllegalStateException("cannot load " + quarantine + ": " + e.getMessage(), e);
    }
    Dataset<Row> empty = spark.table(quarantine).limit(0);
    if (table.currentSnapshot() == null || table.history().isEmpty()) {
      return empty;
    }
    long millis = rewind.committedMillis();
    for (Snapshot snapshot : table.snapshots()) {
      if (sameBatch(snapshot.summary(), rewind)) {
        millis = Math.max(millis, snapshot.timestampMillis());
      }
    }
    if (table.history().get(0).timestampMillis() > millis) {
      Snapshot first = table.snapshot(table.history().get(0).snapshotId());
      if (first != null && first.parentId() == null) {
        return empty; // the table's first commit came later: nothing was quarantined yet then
      }
      throw new IllegalStateException("The snapshots of " + quarantine + " from " + Instant.ofEpochMilli(millis)
          + " were expired, so which rows it held for entity " + entity + " then is unknown; rebuild the silver"
          + " table from all of bronze instead");
    }
    long snapshot = TableRollback.target(table, OptionalLong.empty(), Optional.of(Instant.ofEpochMilli(millis)));
    return spark.sql("SELECT * FROM " + quarantine + " VERSION AS OF " + snapshot).where(
        org.apache.spark.sql.functions.col("entity").equalTo(entity));
  }
}
