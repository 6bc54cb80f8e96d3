package io.tributary.silver;

import io.tributary.common.config.ConfigNames;
import io.tributary.common.config.InvalidConfigException;
import io.tributary.common.config.SilverDatabase;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.CommitConflicts;
import io.tributary.common.lakehouse.UnwritableTableException;
import io.tributary.common.lakehouse.DependencyUnavailableException;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.SilverCheckpoints;
import io.tributary.common.lakehouse.StorageFull;
import io.tributary.common.lakehouse.StreamProgressLog;
import io.tributary.common.lakehouse.StreamRuns;
import io.tributary.common.lakehouse.StreamSupervisor;
import io.tributary.common.lakehouse.TableAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds each configured entity's silver table from its bronze table: an Iceberg streaming read of bronze, and a
 * {@link CdcMerge} per micro-batch; and each database's tables, one stream per database ({@link DatabaseStream}). Run with {@code tributary silver --config FILE [--once]}.
 */
public final class SilverMergeJob {
  private static final Logger LOG = LoggerFactory.getLogger(SilverMergeJob.class);

  private final SparkSession spark;
  private final TributaryConfig config;

  public SilverMergeJob(SparkSession spark, TributaryConfig config) {
    checkConfig(config);
    this.spark = spark;
    this.config = config;
  }

  /** What silver needs beyond a valid config; called before a session is started. */
  public static void checkConfig(TributaryConfig config) {
    if (config.silver().entities().isEmpty() && config.silver().databases().isEmpty()) {
      throw new InvalidConfigException(List.of("tributary.silver.entities: no entities (or databases) are"
          + " configured"));
    }
  }

  /**
   * Runs until every entity has caught up ({@code once}) or until the job is stopped. A stream that loses an Iceberg
   * commit to a concurrent writer is restarted from its checkpoint (with a growing pause, at most
   * {@value #MAX_RESTARTS} times in a row); any other failure stops all streams and is rethrown.
   */
  /** Runs until every entity has caught up with what its source holds now, then returns ({@code --once}). */
  public StreamRuns.Outcome runUntilCaughtUp() {
    return run(true);
  }

  /** Runs until the job is stopped or a stream fails for good. */
  public StreamRuns.Outcome runContinuously() {
    return run(false);
  }

  private StreamRuns.Outcome run(boolean once) {
    LakehouseSession.registerCatalog(spark, config.catalog());
    StreamProgressLog.attachTo(spark);
    SilverLayout layout = SilverLayout.of(config);
    TableAddress quarantine = layout.silver(config.silver().quarantine());
    requireWritable(quarantine, "silver quarantine");
    SilverTables.createQuarantineTable(spark, quarantine);
    List<StreamSupervisor.Supervised> streams = new ArrayList<>();
    for (SilverEntity entity : config.silver().entityList()) {
      if (!prepare(entity, layout, once)) {
        continue;
      }
      streams.add(new EntityStream(spark, entity, config.schemaRegistry(), layout, quarantine,
          SilverCheckpoints.configured(config, entity), once, "silver-" + entity.name()));
    }
    for (SilverDatabase database : config.silver().databaseList()) {
      TableAddress bronze = layout.bronze(database.source());
      if (!bronze.exists(spark)) {
        String missing = database.configPath() + ".source: bronze table " + bronze + " does not exist yet";
        if (once) {
          throw new IllegalStateException(missing + "; run bronze first");
        }
        awaitTable(() -> bronze.exists(spark), bronze.toString(), missing);
      }
      streams.add(new DatabaseStream(spark, database, config.schemaRegistry(), layout, quarantine,
          SilverCheckpoints.database(config, database), once));
    }
    try {
      StreamSupervisor supervisor = new StreamSupervisor(spark, RESTARTS);
      return once ? supervisor.runUntilCaughtUp(streams) : supervisor.runContinuously(streams);
    } catch (RuntimeException failure) {
      throw StorageFull.explain("silver", failure, config).<RuntimeException>map(full -> full)
          .or(() -> operatorMessage(failure)).orElse(failure);
    }
  }

  private static final int MAX_RESTARTS = 10;

  /**
   * A service that refused the run (a schema registry's 401) or stayed away through every restart, or a stream
   * column no table column can hold, as the one line an operator needs, wherever in the stream's failure it is.
   */
  private static Optional<RuntimeException> operatorMessage(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof DependencyUnavailableException refused) {
        return Optional.of(refused);
      }
      if (cause instanceof UnmappableTypeException unmappable) {
        return Optional.of(unmappable);
      }
      if (cause instanceof SchemaRegistryClient.RegistryUnavailableException away) {
        return Optional.of(new DependencyUnavailableException(away.getMessage() + "; still so after " + MAX_RESTARTS
            + " restarts of the stream with a growing pause. Nothing was quarantined or skipped: run silver again"
            + " when the registry answers", failure));
      }
    }
    return Optional.empty();
  }

  /**
   * A lost commit, a table switched to another checkpoint under the stream (a rebuild, a rollback), or a schema
   * registry that did not answer.
   */
  static final StreamSupervisor.RestartPolicy RESTARTS = new StreamSupervisor.RestartPolicy(
      failure -> StreamMovedException.reason(failure).or(() -> CommitConflicts.reason(failure))
          .or(() -> SchemaRegistryClient.RegistryUnavailableException.reason(failure)), MAX_RESTARTS,
      Duration.ofSeconds(2));

  /** Makes the entity's table ready; false for a --once run whose table cannot be created yet (nothing to do). */
  private boolean prepare(SilverEntity entity, SilverLayout layout, boolean once) {
    BronzeFeed bronze = new BronzeFeed(spark, layout.bronze(entity.source()));
    TableAddress silver = layout.silver(entity.table());
    requireNoTableInTheOtherFormat(entity, layout, silver);
    requireWritable(silver, "silver-" + entity.name());
    if (!bronze.exists()) {
      String missing = entity.setting("source") + ": bronze table " + bronze
          + " does not exist yet";
      if (once) {
        throw new IllegalStateException(missing + "; run bronze first");
      }
      awaitTable(bronze::exists, bronze.toString(), missing);
    }
    ChangeDecoder decoder = ChangeDecoder.of(entity, () -> new SchemaRegistryClient(config.schemaRegistry()));
    java.util.function.Supplier<Optional<StreamShape.Shape>> shape = () -> StreamShape.fromBronze(bronze, entity,
        decoder, silver.toString());
    if (SilverTables.createEntityTable(spark, silver, entity, shape)) {
      return true;
    }
    String waiting = "silver-" + entity.name() + ": " + bronze + " has no change events yet to take the columns and"
        + " key of " + silver + " from";
    if (once) {
      LOG.info("{}; nothing to do until it has", waiting);
      return false;
    }
    long started = System.nanoTime();
    long nextLog = started;
    while (!SilverTables.createEntityTable(spark, silver, entity, shape)) {
      long now = System.nanoTime();
      if (now >= nextLog) {
        LOG.info("{}; waiting for them (waited {} s)", waiting, Duration.ofNanos(now - started).toSeconds());
        nextLog = now + TABLE_WAIT_LOG_EVERY.toNanos();
      }
      pause(waiting);
    }
    return true;
  }

  /**
   * A table that exists in the other format only: the config's format would start a new, empty table beside it and
   * merge every change again into that one, while readers of the old table see it stop. Said before anything runs.
   */
  private void requireNoTableInTheOtherFormat(SilverEntity entity, SilverLayout layout, TableAddress silver) {
    TableFormat other = silver.format() == TableFormat.DELTA ? TableFormat.ICEBERG : TableFormat.DELTA;
    if (config.catalog().deltaWarehouse() == null || silver.exists(spark)) {
      return;
    }
    TableAddress there = TableAddress.of(layout.tables(), entity.table(), other);
    if (there.exists(spark)) {
      String format = ConfigNames.of(silver.format());
      throw new InvalidConfigException(List.of("tributary.silver.format: is " + format + ", but "
          + entity.table() + " (" + entity.setting("table") + ") exists as a"
          + (other == TableFormat.ICEBERG ? "n Iceberg table " + there.sqlName()
              : " Delta table at " + there.deltaPath())
          + "; silver would start a new, empty " + format + " table beside it. Keep silver.format = "
          + ConfigNames.of(other) + " for it, or rebuild it under a new name"));
    }
  }

  /** A Delta table upgraded beyond what this release writes fails the job before any stream starts. */
  private void requireWritable(TableAddress table, String role) {
    if (table.format() == TableFormat.DELTA) {
      UnwritableTableException.requireWritableDelta(spark, table.deltaPath(), role + ": " + table);
    }
  }

    private static void pause(String waitingFor) {
    try {
      Thread.sleep(TABLE_POLL.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(waitingFor + "; stopped while waiting", e);
    }
  }

  private static final Duration TABLE_POLL = Duration.ofSeconds(2);
  private static final Duration TABLE_WAIT_LOG_EVERY = Duration.ofMinutes(1);

  /**
   * A continuous silver started together with bronze on a fresh lakehouse: bronze creates its tables only after it
   * has reached Kafka, so silver waits for them (saying so once a minute) instead of failing the deployment.
   */
  private void awaitTable(java.util.function.BooleanSupplier exists, String bronze, String missing) {
    long started = System.nanoTime();
    long nextLog = started;
    while (!exists.getAsBoolean()) {
      long now = System.nanoTime();
      if (now >= nextLog) {
        LOG.info("{}; waiting for bronze to create it (waited {} s)", missing,
            Duration.ofNanos(now - started).toSeconds());
        nextLog = now + TABLE_WAIT_LOG_EVERY.toNanos();
      }
      pause(missing);
    }
    LOG.info("bronze table {} exists; starting", bronze);
  }
}
