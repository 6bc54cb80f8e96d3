package io.tributary.launcher;

import io.tributary.common.cli.JobResult;
import io.tributary.common.cli.UsageException;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.TableRollback;
import io.tributary.silver.DatabaseTableRebuild;
import io.tributary.silver.DeltaSilverRollback;
import io.tributary.silver.SilverRollback;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code rollback --config FILE --table NS.TABLE (--snapshot ID | --timestamp T) [--apply]}: previews what rolling
 * a silver or gold table back would change, and with {@code --apply} does it in one commit (a silver entity's stream
 * is rewound with it).
 */
@Command(name = "rollback", description = "Previews what rolling a silver or gold table back to an earlier snapshot"
    + " would change; with --apply does it in one commit (a silver entity's stream is rewound with it) and prints"
    + " the command that undoes it.")
final class RollbackCommand extends JobCommand {
  @Mixin
  private ConfigOption configOption;

  @Option(names = "--table", required = true, paramLabel = "NS.TABLE", description = "The silver or gold table.")
  private String table;

  @Option(names = "--snapshot", paramLabel = "ID", description = "The snapshot (a Delta table's version) to go back"
      + " to.")
  private String snapshotText;

  @Option(names = "--timestamp", paramLabel = "T", description = "... or the table as it was at T (UTC, e.g."
      + " 2026-11-30T12:00:00Z).")
  private String timestampText;

  @Option(names = "--apply", description = "Roll back; without it nothing changes (a preview).")
  private boolean apply;

  @Override
  Job check() {
    TableName name = TableName.parseText(table);
    if (name == null) {
      throw new UsageException("'rollback': --table must be NAMESPACE.TABLE; got '" + table + "'");
    }
    if ((snapshotText == null) == (timestampText == null)) {
      throw new UsageException("'rollback': give the target as --snapshot ID or --timestamp T");
    }
    OptionalLong snapshot = snapshotText == null ? OptionalLong.empty()
        : OptionalLong.of(Times.number("rollback", "snapshot", snapshotText));
    Optional<Instant> timestamp = Optional.ofNullable(timestampText)
        .map(text -> Times.instant("rollback", "timestamp", text));
    TributaryConfig config = configOption.load();
    if (config.bronze().sourceList().stream().anyMatch(source -> source.table().equals(name))) {
      throw new UsageException("'rollback': " + table + " is a bronze table, the raw record of Kafka: its stream has"
          + " loaded the records a rollback would drop, so they would be lost. Roll back the silver or gold tables"
          + " built from it instead.");
    }
    boolean deltaSilver = config.silver().format() == io.tributary.common.config.TableFormat.DELTA
        && config.silver().entityList().stream().anyMatch(entity -> entity.table().equals(name));
    boolean gold = name.namespace().equals(config.gold().namespace());
    boolean databaseTable = RebuildCommand.isDatabaseTable(config, name);
    if (gold && config.gold().format() == io.tributary.common.config.TableFormat.DELTA) {
      throw new UsageException("'rollback': the gold tables are Delta (tributary.gold.format = delta), and rollback"
          + " works on Iceberg only so far. Delta's own RESTORE TABLE " + table + " TO VERSION AS OF <version> puts a"
          + " Delta table back; or rebuild the model's days (tributary rebuild --table " + table + " --from ... --to"
          + " ...)");
    }
    if (databaseTable && config.silver().format() == io.tributary.common.config.TableFormat.DELTA) {
      throw new UsageException(RebuildCommand.databaseTableOnDelta("rollback", table));
    }
    if (!gold && !deltaSilver && config.bronze().format() == io.tributary.common.config.TableFormat.DELTA) {
      throw new UsageException("'rollback': " + table + " is an Iceberg table reading Delta bronze"
          + " (tributary.bronze.format = delta), which rollback does not cover yet (it does Iceberg silver on Iceberg"
          + " bronze, and Delta silver on either). To build it again from bronze: stop its stream, drop the table,"
          + " delete its checkpoint, and run silver");
    }
    if (deltaSilver) {
      return new Job("rollback", config, spark -> rollBackDelta(spark, config, snapshot, timestamp));
    }
    return new Job("rollback", config, spark -> rollBack(spark, config, name, databaseTable, snapshot, timestamp));
  }

  /** A Delta silver entity's table: its versions instead of snapshots, RESTORE instead of a snapshot switch. */
  private Result rollBackDelta(SparkSession spark, TributaryConfig config, OptionalLong version,
      Optional<Instant> timestamp) {
    DeltaSilverRollback rollback = new DeltaSilverRollback(spark, config);
    long target;
    try {
      target = rollback.target(table, version, timestamp);
    } catch (IllegalArgumentException e) {
      throw new UsageException("'rollback': " + e.getMessage());
    }
    TableRollback.Preview preview = rollback.preview(table, target);
    System.out.print(preview.describe());
    if (apply) {
      rollback.apply(table, target, System.out);
    }
    return new Result(table, "version", target, preview.currentSnapshot(), apply,
        "; the entity's stream then re-applies the bronze changes after that version.");
  }

  /** A rollback previewed or applied; it describes the next step (apply it, or undo it). */
  record Result(String table, String unit, long target, long current, boolean applied, String afterApply)
      implements JobResult {
    @Override
    public String describe() {
      return applied ? "rolled back to " + unit + " " + target + ". To undo: tributary rollback --config FILE --table "
          + table + " --snapshot " + current + " --apply"
          : "nothing changed (a preview). Add --apply to roll back to " + unit + " " + target + afterApply;
    }
  }

  private Result rollBack(SparkSession spark, TributaryConfig config, TableName name, boolean databaseTable,
      OptionalLong snapshot, Optional<Instant> timestamp) throws Exception {
    long target = target(spark, config, table, snapshot, timestamp);
    String sqlName = config.catalog().name() + "." + table;
    Table iceberg = load(spark, sqlName);
    TableRollback.Preview preview = TableRollback.preview(spark, sqlName, iceberg, target);
    System.out.print(preview.describe());
    boolean silver = config.silver().entityList().stream().anyMatch(entity -> entity.table().equals(name));
    if (!apply) {
      return new Result(table, "snapshot", target, preview.currentSnapshot(), false, silver
          ? "; the entity's stream then re-applies the bronze changes after that snapshot."
          : databaseTable ? "; the table is then rebuilt from that snapshot and the changes of its topic after it,"
              + " while the database's stream goes on with the others." : ".");
    }
    if (silver) {
      new SilverRollback(spark, config).apply(table, target, System.out);
    } else if (databaseTable) {
      // The database's stream is shared: the table goes back by a rebuild from that snapshot and a live switch.
      try {
        System.out.println(new DatabaseTableRebuild(spark, config).run(table, OptionalLong.of(target), System.out)
            .describe());
      } catch (IllegalArgumentException e) {
        throw new UsageException("'rollback': " + e.getMessage());
      }
    } else {
      TableRollback.apply(iceberg, target, Map.of(), List.of());
      System.out.println(sqlName + " is at snapshot " + target + " again.");
    }
    return new Result(table, "snapshot", target, preview.currentSnapshot(), true, "");
  }

  /** The snapshot a rollback (or a rebuild from a time) targets. */
  static long target(SparkSession spark, TributaryConfig config, String table, OptionalLong snapshot,
      Optional<Instant> timestamp) {
    LakehouseSession.registerCatalog(spark, config.catalog());
    String sqlName = config.catalog().name() + "." + table;
    if (!spark.catalog().tableExists(sqlName)) {
      throw new UsageException("'" + table + "': no such table in catalog " + config.catalog().name());
    }
    try {
      return TableRollback.target(load(spark, sqlName), snapshot, timestamp);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
  }

  private static Table load(SparkSession spark, String sqlName) {
    try {
      return Spark3Util.loadIcebergTable(spark, sqlName);
    } catch (Exception e) {
      throw new IllegalStateException("cannot load " + sqlName + ": " + e.getMessage(), e);
    }
  }
}
