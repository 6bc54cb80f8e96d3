package io.tributary.silver;

import io.tributary.common.config.TableFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/** A silver table in Iceberg: stream commits are snapshots whose summary names the stream and batch. */
final class IcebergSilverTable implements SilverTable {
  private final String name;
  private final Table table;

  IcebergSilverTable(String name, Table table) {
    this.name = name;
    this.table = table;
  }

  /** A table loaded already; its own name stands for its SQL name. */
  static IcebergSilverTable of(Table table) {
    return new IcebergSilverTable(table.name(), table);
  }

  static IcebergSilverTable load(SparkSession spark, String name) {
    try {
      return new IcebergSilverTable(name, Spark3Util.loadIcebergTable(spark, name));
    } catch (Exception e) {
      throw new IllegalStateException("cannot load " + name + ": " + e.getMessage(), e);
    }
  }

  /** The Iceberg table itself, for what only Iceberg has (snapshots to roll back to, a rebuild's switch). */
  Table iceberg() {
    return table;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public TableFormat format() {
    return TableFormat.ICEBERG;
  }

  @Override
  public void refresh() {
    table.refresh();
  }

  @Override
  public Map<String, String> properties() {
    return table.properties();
  }

  @Override
  public void setProperty(String key, String value) {
    table.updateProperties().set(key, value).commit();
  }

  @Override
  public StructType schema() {
    return SparkSchemaUtil.convert(table.schema());
  }

  @Override
  public java.util.OptionalLong newestBatch(String streamId) {
    return newestCommit(streamId).map(commit -> java.util.OptionalLong.of(commit.batchId()))
        .orElse(java.util.OptionalLong.empty());
  }

  @Override
  public Optional<BatchCommit> newestCommit(String streamId) {
    for (Snapshot snapshot : SnapshotUtil.currentAncestors(table)) {
      if (streamId.equals(snapshot.summary().get(CommittedBatches.STREAM_ID))) {
        return Optional.of(commit(snapshot));
      }
    }
    return Optional.empty();
  }

  @Override
  public Optional<BatchCommit> commitOf(String streamId, long batchId) {
    for (Snapshot snapshot : SnapshotUtil.currentAncestors(table)) {
      if (streamId.equals(snapshot.summary().get(CommittedBatches.STREAM_ID)) && commit(snapshot).batchId() == batchId) {
        return Optional.of(commit(snapshot));
      }
    }
    return Optional.empty();
  }

  private static BatchCommit commit(Snapshot snapshot) {
    return new BatchCommit(snapshot.snapshotId(), Long.parseLong(snapshot.summary().get(CommittedBatches.BATCH_ID)),
        Optional.ofNullable(snapshot.summary().get(CommittedBatches.BRONZE_END)));
  }

  @Override
  public <T> T commit(Map<String, String> commit, Callable<T> statement) throws Exception {
    return CommitMetadata.withCommitProperties(commit, statement, Exception.class);
  }

  @Override
  public void append(Dataset<Row> rows, Map<String, String> commit) throws Exception {
    commit(commit, () -> {
      rows.writeTo(name).append();
      return null;
    });
  }
}
