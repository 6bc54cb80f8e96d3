package io.tributary.maintenance;

import io.tributary.common.cli.JobResult;
import io.tributary.common.cli.UsageException;
import io.tributary.common.config.MaintenancePolicy;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.SparkProgress;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;

/**
 * {@code tributary maintain} and {@code tributary health}: for every table of the config (bronze, silver, gold;
 * {@link MaintainedTables}), runs what its policy says is due ({@link DueOperations}), or one named operation, and
 * prints a health line before and after. Commit conflicts with the streams writing the tables are retried
 * ({@link ConflictRetry}); snapshot expiry never removes a snapshot that a silver stream has not read yet
 * ({@link ExpiryGuard}).
 */
public final class MaintenanceJob {
  private final SparkSession spark;
  private final TributaryConfig config;

  public MaintenanceJob(SparkSession spark, TributaryConfig config) {
    this.spark = spark;
    this.config = config;
  }

  /** What a maintenance run did: each table's health after it, how often each operation ran, and the time. */
  public record Result(Map<String, TableHealth> after, Map<Operation, Integer> operations, Duration took)
      implements JobResult {
    public Result {
      after = Collections.unmodifiableMap(new LinkedHashMap<>(after));
      operations = Collections.unmodifiableMap(operations.isEmpty() ? new EnumMap<>(Operation.class)
          : new EnumMap<>(operations));
    }

    /** {@code 12 tables in 40.2 s; ran rewrite-data-files 3 times, expire-snapshots 12 times}. */
    @Override
    public String describe() {
      String ran = operations.isEmpty() ? "nothing was due" : "ran " + operations.entrySet().stream()
          .map(entry -> entry.getKey().cliName() + " " + (entry.getValue() == 1 ? "once" : entry.getValue() + " times"))
          .collect(Collectors.joining(", "));
      return String.format("%d table%s in %.1f s; %s", after.size(), after.size() == 1 ? "" : "s",
          took.toMillis() / 1000.0, ran);
    }
  }

  /** What a health check found: each table's health (a damaged table fails the check instead). */
  public record Health(Map<String, TableHealth> tables) implements JobResult {
    public Health {
      tables = Collections.unmodifiableMap(new LinkedHashMap<>(tables));
    }

    @Override
    public String describe() {
      return String.format("%d table%s, none damaged", tables.size(), tables.size() == 1 ? "" : "s");
    }
  }

  /**
   * Prints one health line per table (of {@code only}, when given).
   *
   * @throws DamagedTablesException after the lines, when files a table's current snapshot references are missing
   */
  public Health health(Optional<String> only, PrintStream out) {
    List<String> damaged = new ArrayList<>();
    Map<String, TableHealth> tables = new LinkedHashMap<>();
    for (MaintainedTable table : tables(only)) {
      TableHealth health = health(table);
      out.println(table.describe() + ": " + health.describe());
      tables.put(table.sqlName(), health);
      if (health.isDamaged()) {
        damaged.add(table.sqlName());
      }
    }
    DamagedTablesException.throwIfAny(damaged);
    return new Health(tables);
  }

  /**
   * Maintains every table (or {@code only}): all due operations, or just {@code operation}.
   *
   * @return the health of each table after, and the operations that ran
   */
  public Result run(Optional<String> only, Optional<Operation> operation, PrintStream out) {
    long started = System.nanoTime();
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
    Map<Operation, Integer> ran = new EnumMap<>(Operation.class);
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
          ran.merge(candidate, 1, Integer::sum);
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
    return new Result(after, ran, Duration.ofNanos(System.nanoTime() - started));
  }

  /** The tables of the config that exist, in layer order; {@code only} ({@code namespace.table}) picks one. */
  List<MaintainedTable> tables(Optional<String> only) {
    return MaintainedTables.of(spark, config, only);
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
    String what = "      ... " + name + " of " + table.sqlName();
    try (SparkProgress ticker = SparkProgress.start(spark, what, out::println)) {
      String outcome = ConflictRetry.run(name, table, out, () -> execute(operation, table, out));
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
        OptionalLong keep = new ExpiryGuard(spark, config).keepFrom(table, iceberg, out);
        yield ExpireSnapshots.of(spark, iceberg).olderThan(Instant.now().minus(policy.snapshotRetention()))
            .retainLast((int) Math.min(Integer.MAX_VALUE, policy.retainLast())).keepFrom(keep).execute().describe();
      }
      case REMOVE_ORPHAN_FILES -> RemoveOrphanFiles.of(spark, load(table)).olderThan(policy.orphanAge()).execute()
          .describe();
      case OPTIMIZE -> OptimizeDeltaTable.of(spark, table.location().orElseThrow())
          .zOrderBy(policy.strategy() == MaintenancePolicy.Strategy.SORT ? policy.sortBy()
              : List.of()).execute().describe();
      case PURGE_DELETION_VECTORS -> PurgeDeletionVectors.of(spark, table.location().orElseThrow()).execute()
          .describe();
      case VACUUM -> VacuumDeltaTable.of(spark, table.location().orElseThrow())
          .retain(new ExpiryGuard(spark, config).vacuumRetention(table, policy.snapshotRetention(), out)).execute()
          .describe();
    };
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


}
