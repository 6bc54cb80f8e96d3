package io.tributary.launcher;

import io.tributary.common.cli.JobResult;
import io.tributary.common.cli.UsageException;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.DeltaHistory;
import io.tributary.common.lakehouse.DeltaTableRollback;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.StreamCommits;
import io.tributary.common.lakehouse.TableAddress;
import io.tributary.common.lakehouse.TableRollback;
import io.tributary.common.lakehouse.Tables;
import io.tributary.silver.DatabaseTableRebuild;
import io.tributary.silver.DeltaDatabaseTableRebuild;
import io.tributary.silver.DeltaSilverRollback;
import io.tributary.silver.SilverRebuild;
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
    Kind kind = Kind.of(config, name);
    TableFormat format = kind == Kind.GOLD ? config.gold().format() : config.silver().format();
    if (format == TableFormat.DELTA && kind != Kind.OTHER) {
      return new Job("rollback", config, spark -> rollBackDelta(spark, config, name, kind, snapshot, timestamp));
    }
    return new Job("rollback", config, spark -> rollBack(spark, config, kind, snapshot, timestamp));
  }

  /** What a rollback does besides moving the table back, by the kind of table. */
  enum Kind {
    /** A silver entity's table: its stream is rewound with it. */
    ENTITY,
    /** A table of a database block: the database's stream is shared, so the table is rebuilt from the target. */
    DATABASE_TABLE,
    /** A gold model's table: nothing else; the next run builds the days after it again. */
    GOLD,
    /** Any other table of the catalog. */
    OTHER;

    static Kind of(TributaryConfig config, TableName name) {
      if (config.silver().entityList().stream().anyMatch(entity -> entity.table().equals(name))) {
        return ENTITY;
      }
      if (RebuildCommand.isDatabaseTable(config, name)) {
        return DATABASE_TABLE;
      }
      return name.namespace().equals(config.gold().namespace()) ? GOLD : OTHER;
    }

    /** What a preview says follows the rollback. */
    String afterApply(String unit) {
      return switch (this) {
        case ENTITY -> "; the entity's stream then re-applies the bronze changes after that " + unit + ".";
        case DATABASE_TABLE -> "; the table is then rebuilt from that " + unit + " and the changes of its topic after"
            + " it, while the database's stream goes on with the others.";
        case GOLD, OTHER -> ".";
      };
    }
  }

  /**
   * A Delta table: its versions instead of snapshots, and RESTORE instead of a snapshot switch (a silver entity's
   * with its stream rewound); a table of a database block goes back by a rebuild from the version.
   */
  private Result rollBackDelta(SparkSession spark, TributaryConfig config, TableName name, Kind kind,
      OptionalLong version, Optional<Instant> timestamp) {
    TableAddress address = TableAddress.of(new Tables(config.catalog()), name, TableFormat.DELTA);
    DeltaHistory history;
    long target;
    try {
      history = DeltaHistory.read(spark, address, StreamCommits.STREAM_ID);
      target = DeltaTableRollback.target(history, version, timestamp);
    } catch (IllegalArgumentException e) {
      throw new UsageException("'rollback': " + e.getMessage());
    }
    TableRollback.Preview preview = DeltaTableRollback.preview(spark, address, history, target);
    System.out.print(preview.describe());
    if (apply) {
      switch (kind) {
        case ENTITY -> new DeltaSilverRollback(spark, config).apply(table, target, System.out);
        case DATABASE_TABLE -> rebuildDatabaseTable(() -> new DeltaDatabaseTableRebuild(spark, config).run(table,
            OptionalLong.of(target), System.out));
        default -> {
          DeltaTableRollback.restore(spark, address, target);
          System.out.println(address + " is at version " + target + " again.");
        }
      }
    }
    return new Result(table, "version", target, preview.currentSnapshot(), apply, kind.afterApply("version"));
  }

  /** A table of a database block goes back by a rebuild from the target and a live switch; prints its result. */
  private static void rebuildDatabaseTable(java.util.function.Supplier<SilverRebuild.Result> rebuild) {
    try {
      System.out.println(rebuild.get().describe());
    } catch (IllegalArgumentException e) {
      throw new UsageException("'rollback': " + e.getMessage());
    }
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

  private Result rollBack(SparkSession spark, TributaryConfig config, Kind kind, OptionalLong snapshot,
      Optional<Instant> timestamp) throws Exception {
    long target = target(spark, config, table, snapshot, timestamp);
    String sqlName = config.catalog().name() + "." + table;
    Table iceberg = load(spark, sqlName);
    TableRollback.Preview preview = TableRollback.preview(spark, sqlName, iceberg, target);
    System.out.print(preview.describe());
    if (apply) {
      switch (kind) {
        case ENTITY -> new SilverRollback(spark, config).apply(table, target, System.out);
        case DATABASE_TABLE -> rebuildDatabaseTable(() -> new DatabaseTableRebuild(spark, config).run(table,
            OptionalLong.of(target), System.out));
        default -> {
          TableRollback.apply(iceberg, target, Map.of(), List.of());
          System.out.println(sqlName + " is at snapshot " + target + " again.");
        }
      }
    }
    return new Result(table, "snapshot", target, preview.currentSnapshot(), apply, kind.afterApply("snapshot"));
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
