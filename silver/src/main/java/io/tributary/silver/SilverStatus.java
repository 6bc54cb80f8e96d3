package io.tributary.silver;

import io.tributary.common.config.SilverDatabase;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.DatabaseTables;
import io.tributary.common.lakehouse.SilverCheckpoints;
import io.tributary.common.lakehouse.StreamState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.SparkSession;

/**
 * Where each silver stream stands: its last committed batch (from the checkpoint its table names) and the bronze
 * records in snapshots it has not read yet.
 */
public final class SilverStatus {
  private SilverStatus() {}

  public static List<StreamState> of(SparkSession spark, TributaryConfig config) {
    List<StreamState> states = new ArrayList<>();
    String catalog = config.catalog().name();
    for (SilverEntity entity : config.silver().entityList()) {
      String name = "silver-" + entity.name();
      if (!spark.catalog().tableExists(catalog + "." + entity.source())) {
        states.add(noBronze(name, entity.source()));
        continue;
      }
      Optional<Table> silver = spark.catalog().tableExists(catalog + "." + entity.table())
          ? Optional.of(load(spark, catalog + "." + entity.table())) : Optional.empty();
      String checkpoint = silver.map(table -> SilverCheckpoints.current(config, entity, table.properties()))
          .orElseGet(() -> SilverCheckpoints.configured(config, entity));
      states.add(state(spark, name, load(spark, catalog + "." + entity.source()), checkpoint));
    }
    for (SilverDatabase database : config.silver().databaseList()) {
      String name = "silver-database-" + database.name();
      states.add(spark.catalog().tableExists(catalog + "." + database.source())
          ? state(spark, name, load(spark, catalog + "." + database.source()),
              SilverCheckpoints.database(config, database))
          : noBronze(name, database.source()));
    }
    return states;
  }

  /**
   * One line per table of each database: the topic it is made from, its rows and its latest commit by the
   * database's stream.
   */
  public static List<String> databaseTables(SparkSession spark, TributaryConfig config) {
    List<String> lines = new ArrayList<>();
    String catalog = config.catalog().name();
    for (SilverDatabase database : config.silver().databaseList()) {
      Map<TableName, String> tables = DatabaseTables.of(spark, catalog, database);
      lines.add("database " + database.name() + ": " + tables.size() + " table" + (tables.size() == 1 ? "" : "s")
          + " in " + catalog + "." + database.namespace());
      tables.forEach((table, topic) -> {
        Snapshot current = load(spark, catalog + "." + table).currentSnapshot();
        // Deleted rows of the merge-on-read table not counted (as a rebuild reports them).
        String rows = current == null ? "0" : String.valueOf(SnapshotRows.of(current));
        Object lastCommit = current == null ? "none" : Instant.ofEpochMilli(current.timestampMillis());
        lines.add(String.format("  %-40s from %s: %s %s, last commit %s", table, topic, rows,
            rows.equals("1") ? "row" : "rows", lastCommit));
      });
    }
    return lines;
  }

  private static StreamState noBronze(String name, TableName bronze) {
    return new StreamState(name, OptionalLong.empty(), Optional.empty(), 0, "nothing (bronze table " + bronze
        + " does not exist yet: bronze has never run)");
  }

  /** Where the stream with {@code checkpoint} stands on {@code bronze}. */
  private static StreamState state(SparkSession spark, String name, Table bronze, String checkpoint) {
    CheckpointFiles files = new CheckpointFiles(checkpoint, spark.sparkContext().hadoopConfiguration());
    OptionalLong batch = files.lastBatch("commits");
    OptionalLong position = batch.isPresent() ? files.snapshotAfterBatch(batch.getAsLong())
        : files.initialOffsetSnapshot();
    Optional<Instant> at = batch.isPresent() ? files.modified("commits/" + batch.getAsLong()) : Optional.empty();
    long records = 0;
    int snapshots = 0;
    if (bronze.currentSnapshot() != null) {
      for (Snapshot snapshot : SnapshotUtil.currentAncestors(bronze)) {
        if (position.isPresent() && snapshot.snapshotId() == position.getAsLong()) {
          break;
        }
        if (DataOperations.APPEND.equals(snapshot.operation())) {
          long added = Long.parseLong(snapshot.summary().getOrDefault(SnapshotSummary.ADDED_RECORDS_PROP, "0"));
          if (added > 0) {
            records += added;
            snapshots++;
          }
        }
      }
    }
    return new StreamState(name, batch, at, records, String.format("%,d records in %d bronze snapshot%s", records,
        snapshots, snapshots == 1 ? "" : "s"));
  }

  private static Table load(SparkSession spark, String table) {
    try {
      return Spark3Util.loadIcebergTable(spark, table);
    } catch (Exception e) {
      throw new IllegalStateException("cannot load " + table + ": " + e.getMessage(), e);
    }
  }
}
