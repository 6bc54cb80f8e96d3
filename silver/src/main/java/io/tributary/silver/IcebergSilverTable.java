package io.tributary.silver;

import io.tributary.common.config.TableFormat;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
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
  public OptionalLong newestBatch(String streamId) {
    return newestCommit(streamId).map(commit -> OptionalLong.of(commit.batchId()))
        .orElse(OptionalLong.empty());
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

  /** From the manifests, in this process: the scan plans only the files that may hold keys outside the range. */
  @Override
  public Optional<KeysOutside> keysOutside(String column, long lowest, long highest) {
    Types.NestedField field = table.schema().caseInsensitiveFindField(column);
    if (field == null || !field.type().isPrimitiveType()) {
      return Optional.empty();
    }
    Object low = wholeNumber(field.type(), lowest);
    Object high = wholeNumber(field.type(), highest);
    if (low == null || high == null) {
      return Optional.empty();
    }
    List<FileKeys> spans = new ArrayList<>();
    try (CloseableIterable<FileScanTask> files = table.newScan().caseSensitive(false)
        .filter(Expressions.or(Expressions.lessThan(field.name(), low), Expressions.greaterThan(field.name(), high)))
        .includeColumnStats(List.of(field.name())).planFiles()) {
      for (FileScanTask task : files) {
        Map<Integer, ByteBuffer> lowers = task.file().lowerBounds();
        Map<Integer, ByteBuffer> uppers = task.file().upperBounds();
        if (lowers == null || uppers == null || lowers.get(field.fieldId()) == null
            || uppers.get(field.fieldId()) == null) {
          continue; // read under any bounds
        }
        spans.add(new FileKeys(
            ((Number) Conversions.fromByteBuffer(field.type(), lowers.get(field.fieldId()))).longValue(),
            ((Number) Conversions.fromByteBuffer(field.type(), uppers.get(field.fieldId()))).longValue()));
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot plan the files of " + name, e);
    }
    return Optional.of(KeysOutside.of(lowest, highest, spans));
  }

  /** {@code value} as Iceberg's literal of a whole-number type, or null for any other type. */
  private static Object wholeNumber(Type type, long value) {
    return switch (type.typeId()) {
      case INTEGER, DATE -> Math.toIntExact(value);
      case LONG, TIMESTAMP -> value;
      default -> null;
    };
  }
}
