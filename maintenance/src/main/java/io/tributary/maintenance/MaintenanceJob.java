package io.tributary.maintenance;

import io.delta.tables.DeltaTable;
import io.tributary.common.cli.UsageException;
import io.tributary.common.config.BronzeSource;
import io.tributary.common.config.MaintenanceConfig.Layer;
import io.tributary.common.config.MaintenancePolicy;
import io.tributary.common.config.SilverDatabase;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.CommitConflicts;
import io.tributary.common.lakehouse.DatabaseTables;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.SparkProgress;
import io.tributary.common.lakehouse.StreamCommits;
import io.tributary.common.lakehouse.Tables;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * {@code tributary maintain} and {@code tributary health}: for every table of the config (bronze, silver, gold),
 * runs what its policy says is due, or one named operation, and prints a health line before and after. Commit
 * conflicts with the streams writing the tables are retried; snapshot expiry never removes a snapshot that a silver
 * stream has not read yet.
 */
public final class MaintenanceJob {
  private static final int ATTEMPTS = 4;
  private static final Duration PAUSE = Duration.ofSeconds(2);

  private final SparkSession spark;
  private final TributaryConfig config;
  private final Tables tables;

  public MaintenanceJob(SparkSession spark, TributaryConfig config) {
    this.spark = spark;
    this.config = config;
    this.tables = new Tables(config.catalog());
  }

  /**
   * Prints one health line per table (of {@code only}, when given).
   *
   * @throws DamagedTablesException after the lines, when files a table's current snapshot references are missing
   */
  public void health(Optional<String> only, PrintStream out) {
    List<String> damaged = new ArrayList<>();
    for (MaintainedTable table : tables(only)) {
      TableHealth health = health(table);
      out.println(table.describe() + ": " + health.describe());
      if (health.isDamaged()) {
        damaged.add(table.sqlName());
      }
    }
    DamagedTablesException.throwIfAny(damaged);
  }

  /**
   * Maintains every table (or {@code only}): all due operations, or just {@code operation}.
   *
   * @return the health of each table after
   */
  public Map<String, TableHealth> run(Optional<String> only, Optional<Operation> operation, PrintStream out) {
    List<MaintainedTable> selected = tables(only);
    if (operation.isPresent()) {
      // Checked before anything runs: an operation applies to Iceberg tables or to Delta tables.
      List<MaintainedTable> applicable = selected.stream()
          .filter(table -> DueOperations.applicable(table).contains(operation.get())).toList();
      if (applicable.isEmpty() || (only.isPresent() && applicable.size() < selected.size())) {
        throw new UsageException("'maintain': --operation " + operation.get().cliName() + " does not apply to "
            + String.join(", ", selected.stream().map(MaintainedTable::describe).toList()) + " (Iceberg tables: "
            + String.join(", ", DueOperations.ICEBERG.stream().map(Operation::cliName).toList()) + "; Delta tables: "
            + String.join(", ", DueOperations.DELTA.stream().map(Operation::cliName).toList()) + ")");
      }
      selected = applicable;
    }
    Map<String, TableHealth> after = new LinkedHashMap<>();
    List<String> damaged = new ArrayList<>();
    for (MaintainedTable table : selected) {
      out.println("== " + table.describe());
      TableHealth current = health(table);
      out.println("   before: " + current.describe());
      if (current.isDamaged()) {
        // Compaction would fail on the first missing file, and expiry or orphan removal could delete the files a
        // repair (restoring them, or rolling back to a snapshot that still has them) needs.
        out.println("   skipped: " + DamagedTablesException.nextStep(table.layer()));
        damaged.add(table.sqlName());
        after.put(table.sqlName(), current);
        continue;
      }
      for (Operation candidate : DueOperations.applicable(table)) {
        if (operation.isPresent() ? operation.get() == candidate
            : DueOperations.isDue(candidate, table, current, () -> manifests(table))) {
          runOperation(candidate, table, out);
          if (DueOperations.changesHealth(candidate)) {
            current = health(table);
          }
        }
      }
      TableHealth health = health(table);
      out.println("   after:  " + health.describe());
      after.put(table.sqlName(), health);
    }
    DamagedTablesException.throwIfAny(damaged);
    return after;
  }

  /** The tables of the config that exist, in layer order; {@code only} ({@code namespace.table}) picks one. */
  List<MaintainedTable> tables(Optional<String> only) {
    LakehouseSession.registerCatalog(spark, config.catalog());
    List<MaintainedTable> found = new ArrayList<>();
    for (BronzeSource source : config.bronze().sourceList()) {
      add(found, source.table(), Layer.BRONZE, config.bronze().format(), Optional.empty());
    }
    for (SilverEntity entity : config.silver().entityList()) {
      add(found, entity.table(), Layer.SILVER, TableFormat.ICEBERG, Optional.of(entity));
    }
    for (SilverDatabase database : config.silver().databaseList()) {
      DatabaseTables.of(spark, config.catalog().name(), database).forEach((table, topic) ->
          add(found, table, Layer.SILVER, TableFormat.ICEBERG, database.entityFor(topic)));
    }
    add(found, config.silver().quarantine(), Layer.SILVER, TableFormat.ICEBERG, Optional.empty());
    String goldNamespace = config.catalog().name() + "." + config.gold().namespace();
    if (spark.catalog().databaseExists(goldNamespace)) {
      for (Row row : spark.sql("SHOW TABLES IN " + goldNamespace).collectAsList()) {
        add(found, config.gold().table(row.getString(row.fieldIndex("tableName"))), Layer.GOLD, TableFormat.ICEBERG,
            Optional.empty());
      }
    }
    if (only.isEmpty()) {
      return found;
    }
    List<MaintainedTable> picked = found.stream().filter(table -> table.name().toString().equals(only.get())).toList();
    if (picked.isEmpty()) {
      throw new UsageException("--table " + only.get() + " is not an existing table of this config (tables: "
          + String.join(", ", found.stream().map(table -> table.name().toString()).toList()) + ")");
    }
    return picked;
  }

  private void add(List<MaintainedTable> found, TableName name, Layer layer, TableFormat format,
      Optional<SilverEntity> entity) {
    if (found.stream().anyMatch(table -> table.name().equals(name))) {
      return;
    }
    boolean exists = format == TableFormat.DELTA ? DeltaTable.isDeltaTable(spark, tables.deltaPath(name))
        : spark.catalog().tableExists(tables.sqlName(name, format));
    if (exists) {
      found.add(new MaintainedTable(name, layer, format, tables.sqlName(name, format),
          format == TableFormat.DELTA ? Optional.of(tables.deltaPath(name)) : Optional.empty(),
          config.maintenance().policyFor(name, layer), entity));
    }
  }

  private TableHealth health(MaintainedTable table) {
    return table.format() == TableFormat.DELTA
        ? TableHealth.ofDelta(spark, table.sqlName(), table.location().orElseThrow(), table.policy().targetFileSize())
        : TableHealth.ofIceberg(spark, table.sqlName(), table.policy().targetFileSize());
  }

  private long manifests(MaintainedTable table) {
    return spark.sql("SELECT count(*) FROM " + table.sqlName() + ".manifests").first().getLong(0);
  }

  private void runOperation(Operation operation, MaintainedTable table, PrintStream out) {
    String name = operation.cliName();
    try (SparkProgress ticker = SparkProgress.start(spark, "      ... " + name + " of " + table.sqlName(), out::println)) {
      String outcome = withRetries(name, table, out, () -> execute(operation, table, out));
      out.printf("   %s: %s in %.1f s%n", name, outcome, ticker.elapsed());
    }
  }

  private String execute(Operation operation, MaintainedTable table, PrintStream out) {
    var policy = table.policy();
    return switch (operation) {
      case PURGE_TOMBSTONES -> PurgeTombstones.of(spark, table.sqlName())
          .olderThan(Instant.now().minus(policy.tombstoneHorizon())).execute().describe();
      case REWRITE_DATA_FILES -> {
        Table iceberg = load(table);
        Optional<org.apache.iceberg.expressions.Expression> quiet = policy.quietFor().isZero()
            ? Optional.of(org.apache.iceberg.expressions.Expressions.alwaysTrue())
            : QuietPartitions.since(spark, iceberg, table.sqlName(), Instant.now().minus(policy.quietFor()));
        if (quiet.isEmpty()) {
          yield "every partition was written in the last " + policy.quietFor().toMinutes() + " minutes; skipped";
        }
        List<String> sortBy = policy.strategy() == MaintenancePolicy.Strategy.SORT ? policy.sortBy() : List.of();
        for (String column : sortBy) {
          if (iceberg.schema().findField(column) == null) {
            throw new IllegalArgumentException("the maintenance policy of " + table.name() + " sorts by " + column
                + ", which is not a column of " + table.sqlName());
          }
        }
        yield RewriteDataFiles.of(spark, iceberg).targetFileSize(policy.targetFileSize())
            .minInputFiles(policy.minInputFiles()).sortBy(sortBy).filter(quiet.get()).execute().describe();
      }
      case REWRITE_POSITION_DELETES -> RewritePositionDeletes.of(spark, load(table), policy.minInputFiles()).execute()
          .describe();
      case REWRITE_MANIFESTS -> RewriteManifests.of(spark, load(table)).execute().describe();
      case EXPIRE_SNAPSHOTS -> {
        Table iceberg = load(table);
        OptionalLong keep = oldestReadPosition(table, iceberg, out);
        yield ExpireSnapshots.of(spark, iceberg).olderThan(Instant.now().minus(policy.snapshotRetention()))
            .retainLast((int) Math.min(Integer.MAX_VALUE, policy.retainLast())).keepFrom(keep).execute().describe();
      }
      case REMOVE_ORPHAN_FILES -> RemoveOrphanFiles.of(spark, load(table)).olderThan(policy.orphanAge()).execute()
          .describe();
      case OPTIMIZE -> OptimizeDeltaTable.of(spark, table.location().orElseThrow())
          .zOrderBy(policy.strategy() == MaintenancePolicy.Strategy.SORT ? policy.sortBy()
              : List.of()).execute().describe();
      case VACUUM -> VacuumDeltaTable.of(spark, table.location().orElseThrow()).retain(policy.snapshotRetention())
          .execute().describe();
    };
  }

  /**
   * The earliest snapshot expiry must keep. Bronze: where the silver streams reading it resume (each stream's
   * initial offset is first moved up to there, see {@link StreamPositions#moveInitialOffset}). Silver: each
   * stream's latest commit.
   */
  private OptionalLong oldestReadPosition(MaintainedTable table, Table iceberg, PrintStream out) {
    if (table.layer() == Layer.SILVER) {
      return latestStreamCommits(iceberg, out);
    }
    if (table.layer() != Layer.BRONZE) {
      return OptionalLong.empty();
    }
    var hadoop = spark.sparkContext().hadoopConfiguration();
    Map<String, Long> positions = new LinkedHashMap<>();
    StreamPositions.readersOf(config, table.name(), this::silverTable).forEach((stream, checkpoint) -> {
      StreamPositions.moveInitialOffset(checkpoint, hadoop).ifPresent(from -> out.println("      " + stream
          + ": initial offset moved from snapshot " + from + " to where it resumes"));
      StreamPositions.position(checkpoint, hadoop).ifPresent(snapshot -> positions.put(stream, snapshot));
    });
    Optional<Map.Entry<String, Long>> oldest = ExpiryCutoff.oldestPosition(positions,
        ExpiryCutoff.commitTimes(iceberg));
    oldest.ifPresent(entry -> out.println("      " + entry.getKey() + " resumes at snapshot " + entry.getValue()
        + " (of " + positions.size() + " stream" + (positions.size() == 1 ? "" : "s") + " reading this table)"));
    return oldest.map(entry -> OptionalLong.of(entry.getValue())).orElse(OptionalLong.empty());
  }

  /** A silver table, if it exists (the checkpoint its stream runs with is recorded there). */
  private Optional<Table> silverTable(io.tributary.common.config.TableName name) {
    String sqlName = config.catalog().name() + "." + name;
    if (!spark.catalog().tableExists(sqlName)) {
      return Optional.empty();
    }
    try {
      return Optional.of(Spark3Util.loadIcebergTable(spark, sqlName));
    } catch (Exception e) {
      throw new IllegalStateException("cannot load " + sqlName + ": " + e.getMessage(), e);
    }
  }

  /**
   * A silver stream recognises a batch it replays after a crash by the stream id and batch id in its latest
   * commit's summary; that commit must outlive expiry, however many maintenance commits came after it.
   */
  private static OptionalLong latestStreamCommits(Table iceberg, PrintStream out) {
    Map<String, Snapshot> latest = StreamCommits.latestPerStream(iceberg);
    Optional<Map.Entry<String, Snapshot>> oldest = latest.entrySet().stream()
        .min(Comparator.comparingLong(entry -> entry.getValue().timestampMillis()));
    oldest.ifPresent(entry -> out.println("      the latest commits of " + latest.size() + " stream"
        + (latest.size() == 1 ? "" : "s") + " are kept (oldest: snapshot " + entry.getValue().snapshotId() + ")"));
    return oldest.map(entry -> OptionalLong.of(entry.getValue().snapshotId())).orElse(OptionalLong.empty());
  }

  private Table load(MaintainedTable table) {
    try {
      Table iceberg = Spark3Util.loadIcebergTable(spark, table.sqlName());
      iceberg.refresh();
      return iceberg;
    } catch (Exception e) {
      throw new IllegalStateException("cannot load " + table.sqlName(), e);
    }
  }

  /** Runs an operation again (on the refreshed table) when its commit lost to a concurrent writer. */
  private static String withRetries(String name, MaintainedTable table, PrintStream out, Supplier<String> operation) {
    for (int attempt = 1; ; attempt++) {
      try {
        return operation.get();
      } catch (RuntimeException e) {
        if (attempt >= ATTEMPTS || CommitConflicts.reason(e).isEmpty()) {
          throw e;
        }
        out.printf("   %s: commit conflict with a concurrent writer on %s (%s); retrying (%d/%d)%n", name,
            table.sqlName(), rootMessage(e), attempt, ATTEMPTS - 1);
        try {
          Thread.sleep(PAUSE.toMillis() * attempt);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  private static String rootMessage(Throwable error) {
    Throwable root = error;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    String message = String.valueOf(root.getMessage());
    return message.lines().findFirst().orElse(message);
  }
}
