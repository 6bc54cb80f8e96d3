package io.tributary.silver;

import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableFormat;
import io.tributary.common.lakehouse.TableAddress;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** A bronze table as silver reads it, in either format: whether it exists, its newest records, its stream. */
final class BronzeFeed {
  /**
   * The most bytes of bronze files one task of an Iceberg stream's batch reads. Iceberg plans a stream's batch with
   * the table's split size (128 MB unless set), packing files into tasks up to it, and, unlike its batch scans, does
   * not shrink it to give every core a task: a batch of 500,000 records (four files, about 30 MB) was one task, and
   * decoding it used one core of two. At 16 MB it was two tasks of three files and one (4.8 and 2.3 s); at 8 MB each
   * file of that size is a task of its own, so that the cores finish together.
   */
  static final long SPLIT_BYTES = 8L * 1024 * 1024;

  private final SparkSession spark;
  private final TableAddress address;

  BronzeFeed(SparkSession spark, TableAddress address) {
    this.spark = spark;
    this.address = address;
  }

  /** The name SQL statements use. */
  String name() {
    return address.sqlName();
  }

  /** The name for people: the catalog name, or the session catalog's name of a Delta table. */
  @Override
  public String toString() {
    return address.toString();
  }

  boolean exists() {
    return address.exists(spark);
  }

  /** The Iceberg table (an Iceberg bronze only: its snapshots drive a new stream's initial load). */
  Table iceberg() {
    return IcebergSilverTable.load(spark, address.sqlName()).iceberg();
  }

  /**
   * The newest records: in Iceberg the rows bronze's latest append added; in Delta (whose log would have to be read
   * file by file for that) the rows of the newest minute of Kafka time. Empty when bronze has no data yet.
   */
  Optional<Dataset<Row>> newestRecords() {
    if (address.format() == TableFormat.DELTA) {
      Dataset<Row> rows = spark.read().format("delta").load(address.deltaPath());
      Row newest = rows.selectExpr("max(kafka_timestamp)").first();
      return newest.isNullAt(0) ? Optional.empty() : Optional.of(rows.where(org.apache.spark.sql.functions
          .col("kafka_timestamp").geq(org.apache.spark.sql.functions.lit(newest.getTimestamp(0))
              .minus(org.apache.spark.sql.functions.expr("INTERVAL 1 MINUTE")))));
    }
    Table table = iceberg();
    for (Snapshot snapshot = table.currentSnapshot(); snapshot != null;
        snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId())) {
      if ("append".equals(snapshot.operation())) {
        return Optional.of(snapshot.parentId() == null
            ? spark.sql("SELECT * FROM " + name() + " VERSION AS OF " + snapshot.snapshotId())
            : spark.read().format("iceberg").option("start-snapshot-id", snapshot.parentId())
                .option("end-snapshot-id", snapshot.snapshotId()).load(name()));
      }
    }
    return Optional.empty();
  }

  /**
   * Bronze as a stream of the entity's new rows. Iceberg: from where the checkpoint starts (a new stream's initial
   * load wrote that start), at most {@code max-rows-per-trigger} rows per batch. Delta: a new stream reads the whole
   * table as of its start first, then each later commit, at most {@code max-files-per-trigger} files per batch.
   *
   * <p>Both pass over commits that add no records (compaction) and over commits that rewrite or delete rows (a
   * correction or an erasure in bronze): silver does not follow those incrementally; a rebuild from bronze does.
   */
  Dataset<Row> stream(SilverEntity entity) {
    return stream(entity.maxRowsPerTrigger(), entity.maxFilesPerTrigger());
  }

  /** Bronze as a stream, at most {@code maxRows} rows (Iceberg) or {@code maxFiles} files (Delta) per batch. */
  Dataset<Row> stream(long maxRows, long maxFiles) {
    if (address.format() == TableFormat.DELTA) {
      return spark.readStream().format("delta").option("skipChangeCommits", "true")
          .option("maxFilesPerTrigger", String.valueOf(maxFiles)).load(address.deltaPath());
    }
    return spark.readStream().format("iceberg")
        .option("streaming-skip-overwrite-snapshots", "true")
        .option("streaming-skip-delete-snapshots", "true")
        .option("streaming-max-rows-per-micro-batch", String.valueOf(maxRows))
        .option("split-size", String.valueOf(SPLIT_BYTES))
        .load(name());
  }

  /** Whether this is a Delta table whose stream is planned by Delta from the table's log alone. */
  boolean startsFromItsSnapshot() {
    return address.format() == TableFormat.DELTA;
  }
}
