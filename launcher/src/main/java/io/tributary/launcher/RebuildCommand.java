package io.tributary.launcher;

import io.tributary.common.cli.UsageException;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import io.tributary.gold.GoldJob;
import io.tributary.gold.Interval;
import io.tributary.silver.DatabaseTableRebuild;
import io.tributary.silver.SilverRebuild;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code rebuild --config FILE --table NS.TABLE [...]}: rebuilds a silver table from bronze into a shadow table and
 * switches to it atomically (optionally from an earlier snapshot of the table), or a gold model's table from the
 * given days (a full refresh).
 */
@Command(name = "rebuild", description = {"Rebuilds a table into a shadow, validates it and switches to it"
    + " atomically; the old content stays readable by time travel.",
    "A silver table: from all of bronze, or from an earlier snapshot of itself (--from-snapshot or --from-timestamp)"
        + " and the changes after it.",
    "A gold table: from the days --from to --to (a full refresh of the model)."})
final class RebuildCommand extends JobCommand {
  @Mixin
  private ConfigOption config;

  @Option(names = "--table", required = true, paramLabel = "NS.TABLE", description = "The silver or gold table.")
  private String table;

  @Option(names = "--from-snapshot", paramLabel = "ID", description = "Silver: start from this snapshot of the"
      + " table.")
  private String fromSnapshot;

  @Option(names = "--from-timestamp", paramLabel = "T", description = "Silver: start from the table as it was at T"
      + " (UTC).")
  private String fromTimestamp;

  @Option(names = "--from", paramLabel = "YYYY-MM-DD", description = "Gold: the first day.")
  private String from;

  @Option(names = "--to", paramLabel = "YYYY-MM-DD", description = "Gold: the last day (included).")
  private String to;

  /**
   * Recovery of silver tables works on Iceberg (snapshots, an atomic switch of a shadow table); on Delta it is not
   * built yet, and is refused up front rather than half done.
   */
  static void requireIceberg(String command, TributaryConfig config) {
    for (var layer : List.of(Map.entry("silver", config.silver().format()), Map.entry("bronze",
        config.bronze().format()))) {
      if (layer.getValue() == io.tributary.common.config.TableFormat.DELTA) {
        throw new UsageException("'" + command + "': the " + layer.getKey() + " tables are Delta (tributary."
            + layer.getKey() + ".format = delta), and " + command + " of silver tables works on Iceberg only so far."
            + " To build a Delta silver table again from bronze: stop its stream, delete the table's folder and its"
            + " checkpoint, and run silver");
      }
    }
  }

  @Override
  Job check() {
    TableName name = TableName.parseText(table);
    if (name == null) {
      throw new UsageException("'rebuild': --table must be NAMESPACE.TABLE; got '" + table + "'");
    }
    TributaryConfig loaded = config.load();
    if (name.namespace().equals(loaded.gold().namespace())) {
      if (fromSnapshot != null || fromTimestamp != null) {
        throw new UsageException("'rebuild': a gold table is rebuilt from its days (--from and --to), not from a"
            + " snapshot; to go back to a snapshot, use rollback");
      }
      Interval interval = GoldCommand.Days.interval("rebuild", null, from, to);
      GoldJob.checkModels(loaded, Optional.of(name.table()));
      return new Job("rebuild", loaded,
          spark -> GoldJob.of(spark, loaded, interval).select(name.table()).fullRefresh().execute(System.out));
    }
    if (loaded.bronze().sourceList().stream().anyMatch(source -> source.table().equals(name))) {
      throw new UsageException("'rebuild': " + table + " is a bronze table, the raw record of Kafka; load missing"
          + " records with 'reingest', and rebuild the silver tables built from it");
    }
    requireIceberg("rebuild", loaded);
    boolean databaseTable = isDatabaseTable(loaded, name);
    if (!databaseTable) {
      try {
        SilverRebuild.entityOf(loaded, table);
      } catch (IllegalArgumentException e) {
        throw new UsageException("'rebuild': " + e.getMessage());
      }
    }
    if (from != null || to != null) {
      throw new UsageException("'rebuild': --from and --to are for gold tables; a silver table is rebuilt from all"
          + " of bronze, or --from-snapshot / --from-timestamp of itself");
    }
    if (fromSnapshot != null && fromTimestamp != null) {
      throw new UsageException("'rebuild': give --from-snapshot or --from-timestamp, not both");
    }
    OptionalLong snapshot = fromSnapshot == null ? OptionalLong.empty()
        : OptionalLong.of(Times.number("rebuild", "from-snapshot", fromSnapshot));
    Optional<Instant> timestamp = Optional.ofNullable(fromTimestamp)
        .map(text -> Times.instant("rebuild", "from-timestamp", text));
    return new Job("rebuild", loaded, spark -> rebuildSilver(spark, loaded, databaseTable, snapshot, timestamp));
  }

  private SilverRebuild.Result rebuildSilver(SparkSession spark, TributaryConfig loaded, boolean databaseTable,
      OptionalLong snapshot, Optional<Instant> timestamp) {
    OptionalLong from = timestamp.isPresent()
        ? OptionalLong.of(RollbackCommand.target(spark, loaded, table, OptionalLong.empty(), timestamp)) : snapshot;
    if (databaseTable) {
      try {
        return new DatabaseTableRebuild(spark, loaded).run(table, from, System.out);
      } catch (IllegalArgumentException e) {
        throw new UsageException("'rebuild': " + e.getMessage());
      }
    }
    return new SilverRebuild(spark, loaded).run(table, from, System.out);
  }

  /** A table of a database block (not also an entity's, which would be its own stream's). */
  static boolean isDatabaseTable(TributaryConfig config, TableName name) {
    return config.silver().databaseOf(name).isPresent()
        && config.silver().entityList().stream().noneMatch(entity -> entity.table().equals(name));
  }
}
