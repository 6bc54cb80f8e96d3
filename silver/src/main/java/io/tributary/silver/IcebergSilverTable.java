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
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.spark.SparkWriteOptions;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
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

  /**
   * Overwrites the rows that meet {@code within} (none, as of the last refresh) with {@code rows}, validated from the
   * snapshot of the last refresh: Iceberg refuses the commit when a snapshot after it added data or delete files that
   * may hold rows meeting the condition. A plain append would not be validated against anything.
   */
  @Override
  public void appendNewKeys(Dataset<Row> rows, String within, Map<String, String> commit) throws Exception {
    Snapshot planned = table.currentSnapshot();
    commit(commit, () -> {
      // Static: a session set to dynamic overwrite would replace whole partitions where the condition is "true".
      var write = rows.writeTo(name).option(SparkWriteOptions.ISOLATION_LEVEL, "serializable")
          .option(SparkWriteOptions.OVERWRITE_MODE, "static");
      if (planned != null) { // with none, every snapshot the table gets is checked
        write = write.option(SparkWriteOptions.VALIDATE_FROM_SNAPSHOT_ID, String.valueOf(planned.snapshotId()));
      }
      write.overwrite(functions.expr(within));
      return null;
    });
  }

  /** From the manifests, in this process: every data file's statistics for the key column, no data read. */
  @Override
  public Optional<KeysOutside> keysOutside(String column, long lowest, long highest) {
    Types.NestedField field = table.schema().caseInsensitiveFindField(column);
    if (field == null || !wholeNumber(field.type())) {
      return Optional.empty();
    }
    List<FileKeys> spans = new ArrayList<>();
    long withoutKeys = 0;
    try (CloseableIterable<FileScanTask> files = table.newScan().includeColumnStats(List.of(field.name()))
        .planFiles()) {
      for (FileScanTask task : files) {
        Map<Integer, ByteBuffer> lowers = task.file().lowerBounds();
        Map<Integer, ByteBuffer> uppers = task.file().upperBounds();
        if (lowers == null || uppers == null || lowers.get(field.fieldId()) == null
            || uppers.get(field.fieldId()) == null) {
          withoutKeys++; // read under any bounds
          continue;
        }
        spans.add(new FileKeys(
            ((Number) Conversions.fromByteBuffer(field.type(), lowers.get(field.fieldId()))).longValue(),
            ((Number) Conversions.fromByteBuffer(field.type(), uppers.get(field.fieldId()))).longValue()));
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot plan the files of " + name, e);
    }
    return Optional.of(KeysOutside.of(lowest, highest, spans, withoutKeys));
  }

  /** Whether the type holds whole numbers, as Spark holds such a key (days, microseconds). */
  private static boolean wholeNumber(Type type) {
    return switch (type.typeId()) {
      case INTEGER, DATE, LONG, TIMESTAMP -> true;
      default -> false;
    };
  }
}
