package io.tributary.gold;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import io.tributary.common.config.TableFormat;
import io.tributary.common.lakehouse.DeltaCommitMetadata;
import io.tributary.common.lakehouse.DeltaTableNames;
import io.tributary.common.lakehouse.SessionSettings;
import io.tributary.common.lakehouse.TableAddress;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.spark.sql.DataFrameWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Commits a checked result as a model's table, in exactly one commit that carries the run's lineage (Iceberg: in
 * the snapshot summary; Delta: in the commit's user metadata): {@code table} replaces the whole table atomically,
 * {@code incremental} overwrites the interval's partitions (deleting those the result no longer has), {@code merge}
 * upserts on the unique key. The first run of any materialization creates the table with the result.
 */
final class GoldTableWriter {
  private static final Map<String, String> PROPERTIES = Map.of("format-version", "2",
      "write.parquet.compression-codec", "zstd");

  private final SparkSession spark;
  private final GoldTables tables;

  GoldTableWriter(SparkSession spark, GoldTables tables) {
    this.spark = spark;
    this.tables = tables;
  }

  /** Writes {@code result} (registered as view {@code view}) to {@code table}; returns the committed version. */
  long write(GoldModel model, Dataset<Row> result, String view, TableAddress table, Interval interval,
      Lineage lineage, boolean fullRefresh) {
    boolean exists = table.exists(spark);
    boolean replace = !exists || fullRefresh || model.materialization() == Materialization.TABLE;
    if (!replace) {
      requireSameColumns(model, result.schema(), spark.table(table.sqlName()).schema(), table);
    }
    if (table.format() == TableFormat.DELTA) {
      writeDelta(model, result, view, table, interval, lineage, replace);
      DeltaTableNames.register(spark, table.name(), table.deltaPath());
      return deltaVersionOf(table, lineage, model);
    }
    if (!replace && model.materialization() == Materialization.INCREMENTAL) {
      requirePartitionedBy(model, table.sqlName());
    }
    String name = table.sqlName();
    CommitMetadata.withCommitProperties(lineage.summary(), () -> {
      if (replace) {
        var writer = result.writeTo(name).using("iceberg").tableProperty("tributary.gold.model", model.name());
        PROPERTIES.forEach(writer::tableProperty);
        model.partitionBy().ifPresent(column -> writer.partitionedBy(col(column)));
        if (exists) {
          writer.replace(); // an atomic replace: readers see the old table or the new one, history stays
        } else {
          writer.create();
        }
      } else if (model.materialization() == Materialization.INCREMENTAL) {
        result.writeTo(name).overwrite(expr(intervalFilter(model, interval)));
      } else {
        spark.sql(mergeStatement(model, view, name));
      }
      return null;
    }, RuntimeException.class);
    Table written = InputTables.load(spark, name).orElseThrow(() -> new IllegalStateException(name
        + " cannot be read back after model " + model.name() + " committed to it"));
    // This run's commit, even if another run committed to the table just after it.
    for (Snapshot snapshot : SnapshotUtil.currentAncestors(written)) {
      if (lineage.runId().equals(snapshot.summary().get(Lineage.RUN_ID))) {
        return snapshot.snapshotId();
      }
    }
    throw new IllegalStateException("model " + model.name() + " committed to " + name + ", but its commit (run "
        + lineage.runId() + ") is not in the table's history");
  }

  /**
   * The same three materializations in Delta: a replace is an overwrite with the result's schema (a new version;
   * the old ones stay readable by time travel), an incremental run replaces the rows of its interval
   * ({@code replaceWhere}, which Delta checks the result against), a merge is the same MERGE.
   */
  private void writeDelta(GoldModel model, Dataset<Row> result, String view, TableAddress table, Interval interval,
      Lineage lineage, boolean replace) {
    io.tributary.common.lakehouse.UnwritableTableException.requireWritableDelta(spark, table.deltaPath(),
        "gold model " + model.name() + ": " + table);
    // The lineage is the commit's user metadata. Delta leaves out a commit that adds and removes nothing (an
    // interval without rows, twice); every run commits, as on Iceberg, so that its lineage is on record.
    try {
      SessionSettings.with(spark, Map.of(DeltaCommitMetadata.USER_METADATA,
          DeltaCommitMetadata.json(lineage.summary()), SKIP_EMPTY_COMMITS, "false"), () -> {
            writeDeltaCommit(model, result, view, table, interval, replace);
            return null;
          });
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  private static final String SKIP_EMPTY_COMMITS = "spark.databricks.delta.skipRecordingEmptyCommits";

  private void writeDeltaCommit(GoldModel model, Dataset<Row> result, String view, TableAddress table,
      Interval interval, boolean replace) {
    if (replace || model.materialization() == Materialization.INCREMENTAL) {
      DataFrameWriter<Row> writer = result.write().format("delta").mode("overwrite");
      if (replace) {
        writer = writer.option("overwriteSchema", "true");
        if (model.partitionBy().isPresent()) {
          writer = writer.partitionBy(model.partitionBy().get());
        }
      } else {
        writer = writer.option("replaceWhere", intervalFilter(model, interval));
      }
      writer.save(table.deltaPath());
    } else {
      spark.sql(mergeStatement(model, view, table.sqlName()));
    }
  }

  /** The Delta version of this run's commit, even if another run committed to the table just after it. */
  private long deltaVersionOf(TableAddress table, Lineage lineage, GoldModel model) {
    for (DeltaCommitMetadata.Commit commit : DeltaCommitMetadata.history(spark, table.deltaPath(), HISTORY,
        Lineage.RUN_ID)) {
      if (lineage.runId().equals(commit.recorded().get(Lineage.RUN_ID))) {
        return commit.version();
      }
    }
    throw new IllegalStateException("model " + model.name() + " committed to " + table + ", but its commit (run "
        + lineage.runId() + ") is not among the table's last " + HISTORY + " commits");
  }

  /** Commits looked through for this run's own. */
  private static final int HISTORY = 20;

  private static String intervalFilter(GoldModel model, Interval interval) {
    String column = model.partitionBy().orElseThrow();
    return column + " >= " + interval.startLiteral() + " AND " + column + " < " + interval.endLiteral();
  }

  private static String mergeStatement(GoldModel model, String view, String table) {
    String on = model.uniqueKey().stream().map(column -> "t." + column + " <=> s." + column)
        .collect(Collectors.joining(" AND "));
    return "MERGE INTO " + table + " t USING " + view + " s ON " + on
        + " WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *";
  }

  /** An incremental or merge model writes into existing rows: its columns must still be the table's. */
  private static void requireSameColumns(GoldModel model, StructType result, StructType existing, TableAddress table) {
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
