package io.tributary.silver;

import io.tributary.common.config.TableFormat;
import io.tributary.common.lakehouse.DeltaCommitMetadata;
import io.tributary.common.lakehouse.StreamCommits;
import io.tributary.common.lakehouse.TableAddress;
import io.tributary.common.lakehouse.TableRollback;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** An entity's rows in the shared quarantine table as they were at a moment (for a rollback or a partial rebuild). */
final class QuarantineRows {
  private QuarantineRows() {}

  /** The entity's quarantine rows at {@code millis}, in either table format (see below). */
  static Dataset<Row> asOf(SparkSession spark, TableAddress quarantine, String entity, long millis) {
    if (quarantine.format() == TableFormat.ICEBERG) {
      return asOf(spark, quarantine.sqlName(), entity, millis);
    }
    Dataset<Row> now = spark.read().format("delta").load(quarantine.deltaPath());
    OptionalLong version = DeltaCommitMetadata.history(spark, quarantine.deltaPath(), 0, StreamCommits.STREAM_ID)
        .stream().filter(entry -> entry.time().toEpochMilli() <= millis).mapToLong(DeltaCommitMetadata.Commit::version)
        .max();
    if (version.isEmpty()) {
      return now.limit(0); // the quarantine table came later: nothing was quarantined then
    }
    return spark.read().format("delta").option("versionAsOf", version.getAsLong()).load(quarantine.deltaPath())
        .where(org.apache.spark.sql.functions.col("entity").equalTo(entity));
  }

  /**
   * The entity's quarantine rows at {@code millis} in an Iceberg table. A batch appends its quarantine rows before it
   * merges, so at the time of a silver commit the quarantine holds exactly the rows of that batch and the ones before
   * it.
   */
  static Dataset<Row> asOf(SparkSession spark, String quarantine, String entity, long millis) {
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
    if (table.history().get(0).timestampMillis() > millis) {
      org.apache.iceberg.Snapshot first = table.snapshot(table.history().get(0).snapshotId());
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
