package io.tributary.gold;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Commits a checked result as a model's table, in exactly one Iceberg commit that carries the run's lineage:
 * {@code table} replaces the whole table atomically, {@code incremental} overwrites the interval's partitions
 * (deleting those the result no longer has), {@code merge} upserts on the unique key. The first run of any
 * materialization creates the table with the result.
 */
final class GoldTableWriter {
  private static final Map<String, String> PROPERTIES = Map.of("format-version", "2",
      "write.parquet.compression-codec", "zstd");

  private final SparkSession spark;

  GoldTableWriter(SparkSession spark) {
    this.spark = spark;
  }

  /** Writes {@code result} (registered as view {@code view}) to {@code table}; returns the committed snapshot id. */
  long write(GoldModel model, Dataset<Row> result, String view, String table, Interval interval, Lineage lineage,
      boolean fullRefresh) {
    boolean exists = spark.catalog().tableExists(table);
    boolean replace = !exists || fullRefresh || model.materialization() == Materialization.TABLE;
    if (!replace) {
      requireSameColumns(model, result.schema(), spark.table(table).schema(), table);
    }
    if (!replace && model.materialization() == Materialization.INCREMENTAL) {
      requirePartitionedBy(model, table);
    }
    CommitMetadata.withCommitProperties(lineage.summary(), () -> {
      if (replace) {
        var writer = result.writeTo(table).using("iceberg").tableProperty("tributary.gold.model", model.name());
        PROPERTIES.forEach(writer::tableProperty);
        model.partitionBy().ifPresent(column -> writer.partitionedBy(col(column)));
        if (exists) {
          writer.replace(); // an atomic replace: readers see the old table or the new one, history stays
        } else {
          writer.create();
        }
      } else if (model.materialization() == Materialization.INCREMENTAL) {
        String column = model.partitionBy().orElseThrow();
        result.writeTo(table).overwrite(expr(column + " >= " + interval.startLiteral() + " AND " + column + " < "
            + interval.endLiteral()));
      } else {
        spark.sql(mergeStatement(model, view, table));
      }
      return null;
    }, RuntimeException.class);
    Table written = InputTables.load(spark, table).orElseThrow(() -> new IllegalStateException(table
        + " cannot be read back after model " + model.name() + " committed to it"));
    // This run's commit, even if another run committed to the table just after it.
    for (Snapshot snapshot : SnapshotUtil.currentAncestors(written)) {
      if (lineage.runId().equals(snapshot.summary().get(Lineage.RUN_ID))) {
        return snapshot.snapshotId();
      }
    }
    throw new IllegalStateException("model " + model.name() + " committed to " + table + ", but its commit (run "
        + lineage.runId() + ") is not in the table's history");
  }

  private static String mergeStatement(GoldModel model, String view, String table) {
    String on = model.uniqueKey().stream().map(column -> "t." + column + " <=> s." + column)
        .collect(Collectors.joining(" AND "));
    return "MERGE INTO " + table + " t USING " + view + " s ON " + on
        + " WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *";
  }

  /** An incremental or merge model writes into existing rows: its columns must still be the table's. */
  private static void requireSameColumns(GoldModel model, StructType result, StructType existing, String table) {
    List<String> wanted = columns(result);
    List<String> has = columns(existing);
    if (!wanted.equals(has)) {
      throw new ModelFailedException("model " + model.name() + ": its result has columns (" + String.join(", ", wanted)
          + ") but " + table + " has (" + String.join(", ", has) + "). A " + model.materialization().name()
          .toLowerCase(java.util.Locale.ROOT) + " model cannot change its columns in place: drop the table and"
          + " backfill it (tributary gold --from ... --to ...), or materialize it as table");
    }
  }

  /** An incremental model overwrites whole partitions: the table must be partitioned by its partition-by column. */
  private void requirePartitionedBy(GoldModel model, String table) {
    Table iceberg = InputTables.load(spark, table).orElseThrow();
    String column = model.partitionBy().orElseThrow();
    boolean partitioned = iceberg.spec().fields().stream().anyMatch(field -> field.transform().isIdentity()
        && iceberg.schema().findColumnName(field.sourceId()).equals(column));
    if (!partitioned) {
      throw new ModelFailedException("model " + model.name() + ": " + table + " is not partitioned by " + column
          + " (its partitioning: " + iceberg.spec() + "), so the run's days cannot be overwritten alone. Drop the"
          + " table and backfill it (tributary gold --from ... --to ...)");
    }
  }

  private static List<String> columns(StructType schema) {
    return java.util.Arrays.stream(schema.fields()).map(GoldTableWriter::describe).toList();
  }

  private static String describe(StructField field) {
    return field.name() + " " + field.dataType().sql();
  }
}
