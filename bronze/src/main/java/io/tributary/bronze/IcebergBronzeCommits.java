package io.tributary.bronze;

import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.DataFrameWriterV2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * Bronze's record of loaded offsets in an Iceberg table: the snapshot summary of each stream commit. A batch commits
 * as an overwrite that deletes nothing ({@code false}) with serializable isolation from the snapshot it was planned
 * on, so Iceberg refuses it if any data was added since; it is still an {@code append} snapshot for readers.
 */
final class IcebergBronzeCommits implements BronzeCommits {
  private final SparkSession spark;
  private final String table;

  IcebergBronzeCommits(SparkSession spark, String table) {
    this.spark = spark;
    this.table = table;
  }

  @Override
  public TableEnd end() {
    Table iceberg = load();
    Snapshot current = iceberg.currentSnapshot();
    if (current == null) {
      return new TableEnd(KafkaOffsets.NONE, null);
    }
    // The newest stream commit among the current snapshot's ancestors: compaction, expiry and re-ingest commits
    // in between record nothing, and a re-ingest only adds records below where the stream stands.
    for (Snapshot snapshot : SnapshotUtil.currentAncestors(iceberg)) {
      String ends = snapshot.summary().get(END_OFFSETS);
      if (ends != null) {
        return new TableEnd(KafkaOffsets.parse(ends), current.snapshotId());
      }
    }
    return new TableEnd(BronzeCommits.fromRows(spark.read().option("snapshot-id", current.snapshotId())
        .table(table)), current.snapshotId());
  }

  @Override
  public boolean appendIfUnchangedSince(TableEnd basedOn, Dataset<Row> rows, Map<String, String> summary) {
    // Without a starting snapshot Iceberg validates against the whole history: right for a table planned empty.
    DataFrameWriterV2<Row> write = rows.writeTo(table).option("isolation-level", "serializable");
    if (basedOn.version() != null) {
      write = write.option("validate-from-snapshot-id", String.valueOf(basedOn.version()));
    }
    DataFrameWriterV2<Row> validated = write;
    try {
      CommitMetadata.withCommitProperties(summary, () -> {
        validated.overwrite(functions.lit(false));
        return null;
      }, Exception.class);
      return true;
    } catch (Exception e) {
      if (causedByValidation(e)) {
        return false;
      }
      if (e instanceof InterruptedException) {
        // Stopping a stream interrupts its thread. Spark ends a query quietly only for an interruption it recognises,
        // and reported this one, wrapped, as a failure ("cannot append to ...: null").
        Thread.currentThread().interrupt();
        throw new UncheckedIOException("the append to " + table + " was interrupted (the stream is stopping)",
            (InterruptedIOException) new InterruptedIOException("interrupted").initCause(e));
      }
      if (e instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException("cannot append to " + table + ": " + e.getMessage(), e);
    }
  }

  private static boolean causedByValidation(Throwable e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof ValidationException) {
        return true;
      }
    }
    return false;
  }

  private Table load() {
    try {
      Table iceberg = Spark3Util.loadIcebergTable(spark, table);
      iceberg.refresh();
      return iceberg;
    } catch (Exception e) {
      throw new IllegalStateException("cannot load " + table + ": " + e.getMessage(), e);
    }
  }
}
