package io.tributary.silver;

import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.DeltaCommitMetadata;
import io.tributary.common.lakehouse.DeltaTableNames;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.SessionSettings;
import io.tributary.common.lakehouse.SilverCheckpoints;
import io.tributary.common.lakehouse.SparkProgress;
import io.tributary.common.lakehouse.StreamCommits;
import io.tributary.common.lakehouse.StreamSupervisor;
import io.tributary.common.lakehouse.TableAddress;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;

/**
 * Rebuilds an entity's Delta silver table as {@link SilverRebuild} does an Iceberg one: a shadow table
 * ({@code <table>__rebuild}) built from all of bronze or from an earlier version of the table and the bronze changes
 * after it, validated, caught up, and switched to; the old content stays readable by time travel.
 *
 * <p>The switch is Delta's: one commit names the shadow's checkpoint, marks the table (its stream stops at its next
 * batch, a restarted one waits for the mark to go) and takes the shadow's Tributary properties; then an overwrite
 * with the shadow's schema replaces the rows and columns in one commit that records the shadow's stream and batch.
 * A batch that was in flight at the mark and commits before the overwrite makes the rebuild catch up and try again;
 * one that would commit after it loses to Delta's conflict check (its files were removed) and its stream restarts
 * from the shadow's checkpoint.
 */
public final class DeltaSilverRebuild {
  /** Tries of a switch at most: after the mark only a batch in flight can commit, so one retry is the norm. */
  private static final int CATCH_UP_ROUNDS = 5;

  private final SparkSession spark;
  private final TributaryConfig config;
  private final SilverLayout layout;

  public DeltaSilverRebuild(SparkSession spark, TributaryConfig config) {
    this.spark = spark;
    this.config = config;
    this.layout = SilverLayout.of(config);
  }

  /**
   * Rebuilds the table.
   *
   * @param fromVersion an earlier version of the live table to start from instead of an empty table; the bronze
   *     changes after the batch it holds are applied again
   */
  public SilverRebuild.Result run(String table, OptionalLong fromVersion, PrintStream out) {
    try (SparkProgress progress = SparkProgress.start(spark, "      ... rebuilding " + table, out::println)) {
      Target target = target(table, fromVersion);
      String checkpoint = buildShadow(target, fromVersion, out);
      out.println("[2/4] validating " + target.shadow());
      ShadowValidation.check(spark, target.entity(), target.shadow(), target.shadowQuarantine(),
          target.liveExists() ? Optional.of(target.live()) : Optional.empty(), spark.table(target.bronze().sqlName()),
          out);
      out.println("[3/4] catching up with bronze once more");
      catchUp(target, checkpoint);
      out.println("[4/4] switching " + target.live() + " to the rebuilt content");
      return switchToShadow(target, checkpoint, fromVersion, out);
    }
  }

  /** The tables a rebuild reads and writes: the live table, its shadow, and their quarantines. */
  private record Target(SilverEntity entity, TableAddress bronze, TableAddress live, boolean liveExists,
      TableAddress quarantine, SilverEntity shadowEntity, TableAddress shadow, TableAddress shadowQuarantine) {}

  private Target target(String table, OptionalLong fromVersion) {
    SilverEntity entity = SilverRebuild.entityOf(config, table);
    LakehouseSession.registerCatalog(spark, config.catalog());
    TableAddress bronze = layout.bronze(entity.source());
    if (!bronze.exists(spark)) {
      throw new IllegalStateException("bronze table " + bronze + " (the source of entity " + entity.name()
          + ") does not exist");
    }
    TableAddress live = layout.silver(entity.table());
    boolean liveExists = live.exists(spark);
    if (fromVersion.isPresent() && !liveExists) {
      throw new IllegalArgumentException(live + " does not exist, so there is no version to start from");
    }
    TableName quarantineName = config.silver().quarantine();
    TableAddress quarantine = layout.silver(quarantineName);
    SilverTables.createQuarantineTable(spark, quarantine);
    TableName shadowName = new TableName(entity.table().namespace(), entity.table().table() + "__rebuild");
    TableName shadowQuarantineName = new TableName(quarantineName.namespace(),
        quarantineName.table() + "__" + entity.name() + "__rebuild");
    return new Target(entity, bronze, live, liveExists, quarantine, entity.withTable(shadowName),
        layout.silver(shadowName), layout.silver(shadowQuarantineName));
  }

  /**
   * Step 1: a shadow table of the live one, empty or as of {@code fromVersion}, with a checkpoint of its own, caught
   * up with bronze. Returns the checkpoint.
   */
  private String buildShadow(Target target, OptionalLong fromVersion, PrintStream out) {
    DeltaSwitch.drop(spark, target.shadow());
    DeltaSwitch.drop(spark, target.shadowQuarantine());
    SilverTables.createQuarantineTable(spark, target.shadowQuarantine());
    String checkpoint;
    if (fromVersion.isPresent()) {
      long version = fromVersion.getAsLong();
      StreamRewind.Rewind rewind = StreamRewind.to(config, target.entity(), DeltaLineage.read(spark, target.live())
          .writtenBy(version, target.entity()), StreamRewind.icebergBronze(spark, target.bronze()), "rebuild",
          spark.sparkContext().hadoopConfiguration());
      checkpoint = rewind.checkpoint();
      out.printf("[1/4] building %s from %s as of version %d (batch %d of %s), then the bronze changes after it%n",
          target.shadow(), target.live(), version, rewind.batch(), rewind.fromCheckpoint());
      // The rows and properties of then (the truncates remembered then included), with the new checkpoint.
      Map<String, String> properties = new LinkedHashMap<>(DeltaSwitch.propertiesAt(spark, target.live(), version));
      properties.put(SilverCheckpoints.PROPERTY, checkpoint);
      properties.remove(SilverCheckpoints.SWITCHING);
      spark.sql("CREATE TABLE " + target.shadow().sqlName() + " USING delta TBLPROPERTIES ("
          + DeltaSwitch.literals(properties) + ") AS SELECT * FROM " + target.live().sqlName() + " VERSION AS OF " + version);
      // Columns the config added since.
      SilverTables.createEntityTable(spark, target.shadow(), target.shadowEntity(), Optional::empty);
      QuarantineRows.asOf(spark, target.quarantine(), target.entity().name(), rewind).write()
          .format("delta").mode("append").save(target.shadowQuarantine().deltaPath());
    } else {
      checkpoint = SilverCheckpoints.next(config, target.entity(), "rebuild");
      out.printf("[1/4] building %s from all of %s with the entity's current config%n", target.shadow(),
          target.bronze());
      ChangeDecoder decoder = ChangeDecoder.of(target.entity(),
          () -> new SchemaRegistryClient(config.schemaRegistry()));
      if (!SilverTables.createEntityTable(spark, target.shadow(), target.shadowEntity(), () -> StreamShape.fromBronze(
          new BronzeFeed(spark, target.bronze()), target.entity(), decoder, target.live().toString()))) {
        throw new IllegalStateException(target.bronze() + " has no change events to take the columns and key of "
            + target.live() + " from (the entity's config leaves them to the change stream); nothing to rebuild yet");
      }
      SilverTable.open(spark, target.shadow()).setProperty(SilverCheckpoints.PROPERTY, checkpoint);
    }
    out.println("      checkpoint " + checkpoint);
    catchUp(target, checkpoint);
    return checkpoint;
  }

  /** Step 4: the live table takes the shadow's rows, columns and properties, the entity's quarantine rows likewise. */
  private SilverRebuild.Result switchToShadow(Target target, String checkpoint, OptionalLong fromVersion,
      PrintStream out) {
    Map<String, String> commit = new LinkedHashMap<>();
    commit.put("tributary.silver.rebuilt-from", fromVersion.isPresent()
        ? "version " + fromVersion.getAsLong() + " and " + target.bronze() : "all of " + target.bronze());
    Map<String, String> properties = new LinkedHashMap<>(SilverTable.open(spark, target.shadow()).properties());
    properties.put(SilverCheckpoints.PROPERTY, checkpoint);
    properties.put(SilverCheckpoints.SWITCHING, "rebuild to " + checkpoint);
    OptionalLong previous = OptionalLong.empty();
    long previousRows = 0;
    long version;
    if (target.liveExists()) {
      previous = OptionalLong.of(DeltaSwitch.version(spark, target.live()));
      previousRows = DeltaSwitch.rowsAt(spark, target.live(), previous.getAsLong());
      DeltaSwitch.fence(spark, target.live(), properties);
      version = replaceLive(target, checkpoint, commit, out);
    } else {
      // Nothing can commit to a table that does not exist yet; a stream starting meanwhile waits for the mark to go.
      String statement = "CREATE TABLE " + target.live().sqlName() + " USING delta TBLPROPERTIES ("
          + DeltaSwitch.literals(properties) + ") AS SELECT * FROM " + target.shadow().sqlName();
      version = commitAsShadowBatch(checkpoint, commit, target.live(), () -> spark.sql(statement));
    }
    // Recording the shadow's last batch as the live table's commit does: a rollback to that commit takes the entity's
    // quarantine rows as of this one.
    withSettings(Map.of(DeltaCommitMetadata.USER_METADATA, DeltaCommitMetadata.json(shadowBatch(checkpoint))), () -> {
      DeltaSwitch.replaceQuarantine(spark.read().format("delta").load(target.shadowQuarantine().deltaPath()),
          target.quarantine(), target.entity().name());
      return null;
    });
    DeltaSwitch.release(spark, target.live());
    long rows = DeltaSwitch.rowsAt(spark, target.live(), version);
    DeltaSwitch.drop(spark, target.shadow());
    DeltaSwitch.drop(spark, target.shadowQuarantine());
    previous.ifPresent(id -> out.println("The previous content stays readable: SELECT * FROM "
        + target.live().sqlName() + " VERSION AS OF " + id));
    out.println("Silver streams of entity " + target.entity().name() + " continue from " + checkpoint
        + " (a running silver job switches by itself)"
        + (target.liveExists() ? "; the previous checkpoint is no longer used" : ""));
    return new SilverRebuild.Result(target.live().toString(), "version", previous, version, previousRows, rows,
        checkpoint);
  }

  /**
   * Replaces the marked live table's rows and columns with the shadow's once nothing was committed to it while the
   * shadow caught up; a batch in flight at the mark that commits meanwhile (or during the replacement, which Delta's
   * conflict check then fails) makes the shadow catch up and the replacement be tried again. An overwrite, not a
   * REPLACE TABLE: the table keeps its id, so readers that follow it (a stream reading silver) are not cut off.
   * Returns the version it made.
   */
  private long replaceLive(Target target, String checkpoint, Map<String, String> commit, PrintStream out) {
    for (int round = 1; ; round++) {
      long seen = DeltaSwitch.version(spark, target.live());
      catchUp(target, checkpoint);
      if (DeltaSwitch.version(spark, target.live()) == seen) {
        try {
          long version = commitAsShadowBatch(checkpoint, commit, target.live(), () -> {
            spark.read().format("delta").load(target.shadow().deltaPath()).write().format("delta")
                .mode("overwrite").option("overwriteSchema", "true").save(target.live().deltaPath());
            return null;
          });
          if (round > 1) {
            out.printf("      %s received commit(s) of a batch in flight after the mark; caught up with them%n",
                target.live());
          }
          return version;
        } catch (RuntimeException e) {
          if (!DeltaSwitch.lostToConcurrentCommit(e)) {
            throw e;
          }
        }
      }
      if (round == CATCH_UP_ROUNDS) {
        throw new IllegalStateException(target.live() + " kept receiving commits after it was marked as being"
            + " switched (" + CATCH_UP_ROUNDS + " rounds): is a silver job with another checkpoint writing to it?"
            + " Stop it and run the rebuild again; until then streams of the entity wait (property "
            + SilverCheckpoints.SWITCHING + ")");
      }
    }
  }

  /**
   * Runs the statement that writes the live table so that its commit records the shadow's stream and last batch as
   * a stream commit does (its user metadata and Delta's transaction version): the stream going on from the shadow's
   * checkpoint finds its batches committed there. Returns the version it made.
   */
  private long commitAsShadowBatch(String checkpoint, Map<String, String> commit, TableAddress live,
      Callable<?> statement) {
    Map<String, String> batch = shadowBatch(checkpoint);
    Map<String, String> recorded = new LinkedHashMap<>(commit);
    recorded.putAll(batch);
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put(DeltaCommitMetadata.USER_METADATA, DeltaCommitMetadata.json(recorded));
    long batchId = Long.parseLong(batch.get(StreamCommits.BATCH_ID));
    if (batchId >= 0) {
      settings.put(DeltaSilverTable.TXN_APP_ID, batch.get(StreamCommits.STREAM_ID));
      settings.put(DeltaSilverTable.TXN_VERSION, String.valueOf(batchId + 1));
    }
    withSettings(settings, statement);
    DeltaTableNames.register(spark, live.name(), live.deltaPath());
    return DeltaSwitch.version(spark, live);
  }

  /** The stream and batch the shadow's checkpoint has committed last, as commit properties. */
  private Map<String, String> shadowBatch(String checkpoint) {
    CheckpointFiles files = new CheckpointFiles(checkpoint, spark.sparkContext().hadoopConfiguration());
    return Map.of(StreamCommits.STREAM_ID, files.queryId(), StreamCommits.BATCH_ID,
        String.valueOf(files.lastBatch("commits").orElse(InitialLoad.BATCH_ID)));
  }

  private void withSettings(Map<String, String> settings, Callable<?> statement) {
    try {
      SessionSettings.with(spark, settings, statement);
    } catch (Exception e) { // Spark throws its checked SparkException undeclared
      throw e instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getMessage(), e);
    }
  }

  private void catchUp(Target target, String checkpoint) {
    new StreamSupervisor(spark, SilverMergeJob.RESTARTS).runUntilCaughtUp(List.of(new EntityStream(spark,
        target.shadowEntity(), config.schemaRegistry(), layout, target.shadowQuarantine(), checkpoint, true,
        "silver-" + target.entity().name() + "-rebuild")));
  }
}
