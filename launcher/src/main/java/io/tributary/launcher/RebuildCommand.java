package io.tributary.launcher;

import io.tributary.common.cli.UsageException;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.DeltaHistory;
import io.tributary.common.lakehouse.DeltaTableRollback;
import io.tributary.common.lakehouse.StreamCommits;
import io.tributary.common.lakehouse.TableAddress;
import io.tributary.common.lakehouse.Tables;
import io.tributary.gold.GoldJob;
import io.tributary.gold.Interval;
import io.tributary.silver.DatabaseTableRebuild;
import io.tributary.silver.DeltaSilverRebuild;
import io.tributary.silver.DeltaDatabaseTableRebuild;
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
    if (loaded.silver().format() == TableFormat.DELTA) {
      return rebuildDelta(spark, loaded, databaseTable, snapshot, timestamp);
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

  /**
   * A Delta silver table (an entity's, or one of a database block): from all of bronze, or from a version of the
   * table (--from-snapshot names it, or --from-timestamp picks it).
   */
  private SilverRebuild.Result rebuildDelta(SparkSession spark, TributaryConfig loaded, boolean databaseTable,
      OptionalLong version, Optional<Instant> timestamp) {
    OptionalLong from = version;
    try {
      if (version.isPresent() || timestamp.isPresent()) {
        TableAddress address = TableAddress.of(new Tables(loaded.catalog()), TableName.parseText(table),
            TableFormat.DELTA);
        from = OptionalLong.of(DeltaTableRollback.target(DeltaHistory.read(spark, address, StreamCommits.STREAM_ID),
            version, timestamp));
      }
      return databaseTable ? new DeltaDatabaseTableRebuild(spark, loaded).run(table, from, System.out)
          : new DeltaSilverRebuild(spark, loaded).run(table, from, System.out);
    } catch (IllegalArgumentException e) {
      throw new UsageException("'rebuild': " + e.getMessage());
    }
  }

  /** A table of a database block (not also an entity's, which would be its own stream's). */
  static boolean isDatabaseTable(TributaryConfig config, TableName name) {
    return config.silver().databaseOf(name).isPresent()
        && config.silver().entityList().stream().noneMatch(entity -> entity.table().equals(name));
  }
}
