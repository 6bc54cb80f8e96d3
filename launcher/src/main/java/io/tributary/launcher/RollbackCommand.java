package io.tributary.launcher;

import io.tributary.common.cli.Arguments;
import io.tributary.common.cli.UsageException;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.TableRollback;
import io.tributary.silver.DatabaseTableRebuild;
import io.tributary.silver.SilverRollback;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;

/**
 * {@code rollback --config FILE --table NS.TABLE (--snapshot ID | --timestamp T) [--apply]}: previews what rolling
 * a silver or gold table back would change, and with {@code --apply} does it in one commit (a silver entity's stream
 * is rewound with it).
 */
final class RollbackCommand implements Command {
  @Override
  public String name() {
    return "rollback";
  }

  @Override
  public String usage() {
    return "--config FILE --table NS.TABLE (--snapshot ID | --timestamp T) [--apply]\n"
        + "           preview rolling a silver or gold table back to a snapshot; --apply does it";
  }

  @Override
  public int run(List<String> argList) throws Exception {
    Arguments args = Arguments.parse(name(), argList, Set.of("config", "table", "snapshot", "timestamp"),
        Set.of("apply"));
    String table = args.required("table");
    TableName name = TableName.parseText(table);
    if (name == null) {
      throw new UsageException("'rollback': --table must be NAMESPACE.TABLE; got '" + table + "'");
    }
    if (args.value("snapshot").isPresent() == args.value("timestamp").isPresent()) {
      throw new UsageException("'rollback': give the target as --snapshot ID or --timestamp T");
    }
    OptionalLong snapshot = args.value("snapshot").map(text -> OptionalLong.of(Times.number(name(), "snapshot",
        text))).orElse(OptionalLong.empty());
    Optional<Instant> timestamp = args.value("timestamp").map(text -> Times.instant(name(), "timestamp", text));
    TributaryConfig config = ConfigOption.load(args);
    if (config.bronze().sourceList().stream().anyMatch(source -> source.table().equals(name))) {
      throw new UsageException("'rollback': " + table + " is a bronze table, the raw record of Kafka: its stream has"
          + " loaded the records a rollback would drop, so they would be lost. Roll back the silver or gold tables"
          + " built from it instead.");
    }
    boolean databaseTable = RebuildCommand.isDatabaseTable(config, name);
    SparkSession spark = Sessions.start(config, name());
    long target = target(spark, config, table, snapshot, timestamp);
    String sqlName = config.catalog().name() + "." + table;
    Table iceberg = load(spark, sqlName);
    TableRollback.Preview preview = TableRollback.preview(spark, sqlName, iceberg, target);
    System.out.print(preview.describe());
    boolean silver = config.silver().entityList().stream().anyMatch(entity -> entity.table().equals(name));
    if (!args.flag("apply")) {
      System.out.println("Nothing changed (a preview). Add --apply to roll back" + (silver
          ? "; the entity's stream then re-applies the bronze changes after that snapshot."
          : databaseTable ? "; the table is then rebuilt from that snapshot and the changes of its topic after it,"
              + " while the database's stream goes on with the others." : "."));
      return Tributary.OK;
    }
    if (silver) {
      new SilverRollback(spark, config).apply(table, target, System.out);
    } else if (databaseTable) {
      // The database's stream is shared: the table goes back by a rebuild from that snapshot and a live switch.
      try {
        new DatabaseTableRebuild(spark, config).run(table, OptionalLong.of(target), System.out);
      } catch (IllegalArgumentException e) {
        throw new UsageException("'rollback': " + e.getMessage());
      }
    } else {
      TableRollback.apply(iceberg, target, Map.of(), List.of());
      System.out.println(sqlName + " is at snapshot " + target + " again.");
    }
    System.out.println("To undo: tributary rollback --config FILE --table " + table + " --snapshot "
        + preview.currentSnapshot() + " --apply");
    return Tributary.OK;
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
