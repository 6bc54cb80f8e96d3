package io.tributary.launcher;

import io.tributary.common.cli.UsageException;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import io.tributary.gold.GoldJob;
import io.tributary.gold.Interval;
import io.tributary.silver.DatabaseTableRebuild;
import io.tributary.silver.DeltaSilverRebuild;
import io.tributary.silver.DeltaSilverRollback;
import io.tributary.silver.SilverRebuild;
import java.time.Instant;
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
      + " table (its version, for a Delta table).")
  private String fromSnapshot;

  @Option(names = "--from-timestamp", paramLabel = "T", description = "Silver: start from the table as it was at T"
      + " (UTC).")
  private String fromTimestamp;

  @Option(names = "--from", paramLabel = "YYYY-MM-DD", description = "Gold: the first day.")
  private String from;

  @Option(names = "--to", paramLabel = "YYYY-MM-DD", description = "Gold: the last day (included).")
  private String to;

  /**
   * Rebuild of silver tables works on Iceberg silver reading Iceberg bronze and on Delta silver reading either; an
   * Iceberg silver table reading Delta bronze is refused up front rather than half done.
   */
  private static void requireCovered(TributaryConfig config, String table) {
    if (config.silver().format() == TableFormat.ICEBERG && config.bronze().format() == TableFormat.DELTA) {
      throw new UsageException("'rebuild': " + table + " is an Iceberg table reading Delta bronze"
          + " (tributary.bronze.format = delta), which rebuild does not cover yet (it does Iceberg silver on Iceberg"
          + " bronze, and Delta silver on either). To build it again from bronze: stop its stream, drop the table,"
          + " delete its checkpoint, and run silver");
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
    requireCovered(loaded, table);
    boolean databaseTable = isDatabaseTable(loaded, name);
    if (databaseTable && loaded.silver().format() == TableFormat.DELTA) {
      throw new UsageException(databaseTableOnDelta("rebuild", table));
    }
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
    if (loaded.silver().format() == TableFormat.DELTA) {
      return rebuildDelta(spark, loaded, snapshot, timestamp);
    }
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

  /** A Delta silver entity's table: from all of bronze, or from a version of the table (--from-snapshot names it). */
  private SilverRebuild.Result rebuildDelta(SparkSession spark, TributaryConfig loaded, OptionalLong version,
      Optional<Instant> timestamp) {
    OptionalLong from = version;
    try {
      if (version.isPresent() || timestamp.isPresent()) {
        from = OptionalLong.of(new DeltaSilverRollback(spark, loaded).target(table, version, timestamp));
      }
      return new DeltaSilverRebuild(spark, loaded).run(table, from, System.out);
    } catch (IllegalArgumentException e) {
      throw new UsageException("'rebuild': " + e.getMessage());
    }
  }

  /**
   * Recovery of one table of a database block shares the database's stream (a shadow stream over the table's topic);
   * on Delta that is not built yet, and is refused with the way to build the tables again by hand.
   */
  static String databaseTableOnDelta(String command, String table) {
    return "'" + command + "': " + table + " is a table of a database block in Delta (tributary.silver.format ="
        + " delta), which " + command + " does not cover yet (it does a database's tables in Iceberg, and Delta"
        + " entities). To build the database's tables again from bronze: stop silver, delete the tables' folders and"
        + " the database's checkpoint, and run silver";
  }

  /** A table of a database block (not also an entity's, which would be its own stream's). */
  static boolean isDatabaseTable(TributaryConfig config, TableName name) {
    return config.silver().databaseOf(name).isPresent()
        && config.silver().entityList().stream().noneMatch(entity -> entity.table().equals(name));
  }
}
