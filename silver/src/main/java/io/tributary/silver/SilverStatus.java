package io.tributary.silver;

import io.tributary.common.config.SilverDatabase;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.DatabaseTables;
import io.tributary.common.lakehouse.DeltaTableNames;
import io.tributary.common.lakehouse.SilverCheckpoints;
import io.tributary.common.lakehouse.StreamState;
import io.tributary.common.lakehouse.TableAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;
import org.apache.spark.sql.delta.actions.Action;
import org.apache.spark.sql.delta.actions.AddFile;
import org.apache.spark.sql.delta.actions.RemoveFile;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Where each silver stream stands: its last committed batch (from the checkpoint its table names) and the bronze
 * records in snapshots it has not read yet.
 */
public final class SilverStatus {
  private SilverStatus() {}

  public static List<StreamState> of(SparkSession spark, TributaryConfig config) {
    List<StreamState> states = new ArrayList<>();
    SilverLayout layout = SilverLayout.of(config);
    for (SilverEntity entity : config.silver().entityList()) {
      String name = "silver-" + entity.name();
      TableAddress bronze = layout.bronze(entity.source());
      if (!bronze.exists(spark)) {
        states.add(noBronze(name, entity.source()));
        continue;
      }
      TableAddress silver = layout.silver(entity.table());
      String checkpoint = silver.exists(spark)
          ? SilverCheckpoints.current(config, entity, SilverTable.open(spark, silver).properties())
          : SilverCheckpoints.configured(config, entity);
      states.add(state(spark, name, bronze, checkpoint));
    }
    for (SilverDatabase database : config.silver().databaseList()) {
      String name = "silver-database-" + database.name();
      TableAddress bronze = layout.bronze(database.source());
      states.add(bronze.exists(spark) ? state(spark, name, bronze, SilverCheckpoints.database(config, database))
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
    SilverLayout layout = SilverLayout.of(config);
    for (SilverDatabase database : config.silver().databaseList()) {
      Map<TableName, String> tables = DatabaseTables.of(spark, config, database);
      lines.add("database " + database.name() + ": " + tables.size() + " table" + (tables.size() == 1 ? "" : "s")
          + " in " + (layout.silverFormat() == TableFormat.DELTA ? DeltaTableNames.CATALOG : config.catalog().name())
          + "." + database.namespace());
      tables.forEach((table, topic) -> {
        TableAddress address = layout.silver(table);
        long rows;
        Object lastCommit;
        if (address.format() == TableFormat.DELTA) {
          org.apache.spark.sql.delta.Snapshot current = DeltaLog.forTable(spark, address.deltaPath())
              .update(false, Option.empty(), Option.empty());
          // Counted from the log's file statistics, deleted rows (deletion vectors) not counted.
          rows = spark.read().format("delta").option("versionAsOf", current.version()).load(address.deltaPath())
              .count();
          lastCommit = Instant.ofEpochMilli(current.timestamp());
        } else {
          Snapshot current = load(spark, address.sqlName()).currentSnapshot();
          // Deleted rows of the merge-on-read table not counted (as a rebuild reports them).
          rows = current == null ? 0 : SnapshotRows.of(current);
          lastCommit = current == null ? "none" : Instant.ofEpochMilli(current.timestampMillis());
        }
        lines.add(String.format("  %-40s from %s: %d %s, last commit %s", table, topic, rows,
            rows == 1 ? "row" : "rows", lastCommit));
      });
    }
    return lines;
  }

  private static StreamState noBronze(String name, TableName bronze) {
    return new StreamState(name, OptionalLong.empty(), Optional.empty(), 0, "nothing (bronze table " + bronze
        + " does not exist yet: bronze has never run)");
  }

  /** Where the stream with {@code checkpoint} stands on {@code bronze}, in either format. */
  private static StreamState state(SparkSession spark, String name, TableAddress bronze, String checkpoint) {
    CheckpointFiles files = new CheckpointFiles(checkpoint, spark.sparkContext().hadoopConfiguration());
    return bronze.format() == TableFormat.DELTA ? deltaState(spark, name, bronze, files)
        : icebergState(name, load(spark, bronze.sqlName()), files);
  }

  /**
   * Where a stream stands on a Delta bronze table: the version its last batch ended at (Delta's own offset) and the
   * records added by the commits from there on, read from those commits alone. Before its first batch, all of
   * bronze is ahead of it. (A stream still inside the table's first snapshot counts only the commits after it.)
   */
  private static StreamState deltaState(SparkSession spark, String name, TableAddress bronze,
      CheckpointFiles files) {
    OptionalLong batch = files.lastBatch("commits");
    Optional<Instant> at = batch.isPresent() ? files.modified("commits/" + batch.getAsLong()) : Optional.empty();
    Optional<String> end = batch.isPresent() ? files.batchEnd(batch.getAsLong()) : Optional.empty();
    if (end.isEmpty()) {
      long records = spark.read().format("delta").load(bronze.deltaPath()).count();
      return new StreamState(name, batch, at, records, String.format("%,d records in bronze, not read yet",
          records));
    }
    long version = number(end.get(), "reservoirVersion");
    boolean versionDone = end.get().matches("(?s).*\"isStartingVersion\"\\s*:\\s*true.*")
        || number(end.get(), "index") != -1;
    long records = 0;
    int commits = 0;
    DeltaLog log = DeltaLog.forTable(spark, bronze.deltaPath());
    long latest = log.update(false, Option.empty(), Option.empty()).version();
    long from = versionDone ? version + 1 : version;
    if (from <= latest) {
      var changes = log.getChanges(from, Option.empty(), false);
      while (changes.hasNext()) {
        long added = 0;
        boolean rewrites = false;
        for (Action action : CollectionConverters.asJava(changes.next()._2())) {
          if (action instanceof AddFile add && add.dataChange()) {
            added += add.numLogicalRecords().isDefined() ? (Long) add.numLogicalRecords().get() : 0;
          } else if (action instanceof RemoveFile remove && remove.dataChange()) {
            rewrites = true; // a correction or an erasure: the stream passes over it
          }
        }
        if (added > 0 && !rewrites) {
          records += added;
          commits++;
        }
      }
    }
    return new StreamState(name, batch, at, records, String.format("%,d records in %d bronze version%s", records,
        commits, commits == 1 ? "" : "s"));
  }

  private static long number(String json, String field) {
    Matcher matcher = Pattern.compile("\"" + field + "\"\\s*:\\s*(-?\\d+)").matcher(json);
    if (!matcher.find()) {
      throw new IllegalStateException("the stream's offset " + json + " has no " + field);
    }
    return Long.parseLong(matcher.group(1));
  }

  /** Where a stream stands on an Iceberg bronze table: the snapshot it resumes at and the appends after it. */
  private static StreamState icebergState(String name, Table bronze, CheckpointFiles files) {
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
