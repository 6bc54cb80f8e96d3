package io.tributary.launcher;

import io.tributary.common.cli.Arguments;
import io.tributary.common.cli.UsageException;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import io.tributary.gold.GoldJob;
import io.tributary.silver.DatabaseTableRebuild;
import io.tributary.silver.SilverRebuild;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.spark.sql.SparkSession;

/**
 * {@code rebuild --config FILE --table NS.TABLE [...]}: rebuilds a silver table from bronze into a shadow table and
 * switches to it atomically (optionally from an earlier snapshot of the table), or a gold model's table from the
 * given days (a full refresh).
 */
final class RebuildCommand implements Command {
  @Override
  public String name() {
    return "rebuild";
  }

  @Override
  public String usage() {
    return "--config FILE --table NS.TABLE [--from-snapshot ID | --from-timestamp T]   (silver)\n"
        + "           --config FILE --table GOLD_NS.MODEL --from YYYY-MM-DD --to YYYY-MM-DD   (gold)\n"
        + "           rebuild a table into a shadow, validate it, switch atomically (old content stays readable by"
        + " time travel)";
  }

  @Override
  public int run(List<String> argList) {
    Arguments args = Arguments.parse(name(), argList, Set.of("config", "table", "from-snapshot", "from-timestamp",
        "from", "to"), Set.of());
    String table = args.required("table");
    if (TableName.parseText(table) == null) {
      throw new UsageException("'rebuild': --table must be NAMESPACE.TABLE; got '" + table + "'");
    }
    TributaryConfig config = ConfigOption.load(args);
    TableName name = TableName.parseText(table);
    if (name.namespace().equals(config.gold().namespace())) {
      if (args.value("from-snapshot").isPresent() || args.value("from-timestamp").isPresent()) {
        throw new UsageException("'rebuild': a gold table is rebuilt from its days (--from and --to), not from a"
            + " snapshot; to go back to a snapshot, use rollback");
      }
      var interval = GoldCommand.interval(args);
      GoldCommand.checkModels(config, Optional.of(name.table()), false);
      new GoldJob(Sessions.start(config, name()), config).run(Optional.of(name.table()), false, interval, true,
          false, System.out);
      return Tributary.OK;
    }
    if (config.bronze().sourceList().stream().anyMatch(source -> source.table().equals(name))) {
      throw new UsageException("'rebuild': " + table + " is a bronze table, the raw record of Kafka; load missing"
          + " records with 'reingest', and rebuild the silver tables built from it");
    }
    boolean databaseTable = isDatabaseTable(config, name);
    if (!databaseTable) {
      try {
        SilverRebuild.entityOf(config, table);
      } catch (IllegalArgumentException e) {
        throw new UsageException("'rebuild': " + e.getMessage());
      }
    }
    if (args.value("from").isPresent() || args.value("to").isPresent()) {
      throw new UsageException("'rebuild': --from and --to are for gold tables; a silver table is rebuilt from all"
          + " of bronze, or --from-snapshot / --from-timestamp of itself");
    }
    if (args.value("from-snapshot").isPresent() && args.value("from-timestamp").isPresent()) {
      throw new UsageException("'rebuild': give --from-snapshot or --from-timestamp, not both");
    }
    OptionalLong snapshot = args.value("from-snapshot").map(text -> OptionalLong.of(Times.number(name(),
        "from-snapshot", text))).orElse(OptionalLong.empty());
    var timestamp = args.value("from-timestamp").map(text -> Times.instant(name(), "from-timestamp", text));
    SparkSession spark = Sessions.start(config, name());
    if (timestamp.isPresent()) {
      snapshot = OptionalLong.of(RollbackCommand.target(spark, config, table, OptionalLong.empty(), timestamp));
    }
    if (databaseTable) {
      try {
        new DatabaseTableRebuild(spark, config).run(table, snapshot, System.out);
      } catch (IllegalArgumentException e) {
        throw new UsageException("'rebuild': " + e.getMessage());
      }
      return Tributary.OK;
    }
    new SilverRebuild(spark, config).run(table, snapshot, System.out);
    return Tributary.OK;
  }

  /** A table of a database block (not also an entity's, which would be its own stream's). */
  static boolean isDatabaseTable(TributaryConfig config, TableName name) {
    return config.silver().databaseOf(name).isPresent()
        && config.silver().entityList().stream().noneMatch(entity -> entity.table().equals(name));
  }
}
