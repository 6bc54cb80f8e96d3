package io.tributary.silver;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.tributary.common.cli.JobResult;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.TableAddress;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.SilverCheckpoints;
import io.tributary.common.lakehouse.SparkProgress;
import io.tributary.common.lakehouse.StreamCommits;
import io.tributary.common.lakehouse.StreamSupervisor;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;

/**
 * Rebuilds an entity's silver table from bronze without readers ever seeing a half-built table:
 *
 * <ol>
 *   <li>build a shadow table ({@code <table>__rebuild}) with the entity's current config, from all of bronze (an
 *       initial load, then the stream until caught up), or from an earlier snapshot of the table and the bronze
 *       changes after it, with its own checkpoint and quarantine;
 *   <li>validate it (keys unique, rows present when bronze has records) and report its counts next to the live
 *       table's; a failed validation leaves the live table untouched and keeps the shadow for inspection;
 *   <li>catch up once more, then switch ({@link LiveSwitch}): one commit names the shadow's checkpoint as the live
 *       table's and marks it as being switched (its streams stop or wait from then on), the next replaces its rows
 *       with the shadow's, applied by Iceberg only if nothing was committed to the live table since the shadow last
 *       caught up (a batch that was in flight makes the rebuild catch up and try again), then the entity's quarantine
 *       rows are replaced in one commit and the mark goes. The old content stays readable by time travel
 *       ({@code VERSION AS OF}).
 * </ol>
 *
 * A silver job running meanwhile keeps applying to the old table until the fence; its next batch then finds the
 * table named another checkpoint, stops without committing, and restarts from the shadow's checkpoint once the mark
 * is gone, which goes on exactly where the rebuilt content ends.
 */
public final class SilverRebuild {
  /** What a rebuild did. */
  /**
   * @param unit what {@code snapshot} counts: {@code snapshot} (Iceberg) or {@code version} (Delta)
   */
  public record Result(String table, String unit, OptionalLong previousSnapshot, long snapshot, long previousRows,
      long rows, String checkpoint) implements JobResult {
    /** {@code lake.silver.orders rebuilt: 41,205 rows (was 41,200), snapshot 7260943316468871390}. */
    @Override
    public String describe() {
      return String.format("%s rebuilt: %,d rows (was %,d), %s %d", table, rows, previousRows, unit, snapshot);
    }
  }

  /** Tries of a switch at most: after the fence only a batch in flight can commit, so one retry is the norm. */
  private static final int CATCH_UP_ROUNDS = 5;

  private final SparkSession spark;
  private final TributaryConfig config;

  public SilverRebuild(SparkSession spark, TributaryConfig config) {
    this.spark = spark;
    this.config = config;
  }

  /** The entity whose silver table this is; fails naming the configured tables otherwise. */
  public static SilverEntity entityOf(TributaryConfig config, String table) {
    return config.silver().entityList().stream().filter(entity -> entity.table().toString().equals(table))
        .findFirst().orElseThrow(() -> new IllegalArgumentException(table + " is not the silver table of any entity"
            + " in tributary.silver.entities (tables: " + config.silver().entityList().stream()
            .map(entity -> entity.table().toString()).collect(Collectors.joining(", ")) + ")"));
  }

  /**
   * Rebuilds the table.
   *
   * @param fromSnapshot an earlier snapshot of the live table to start from instead of an empty table; the bronze
   *     changes after the batch it holds are applied again
   */
  public Result run(String table, OptionalLong fromSnapshot, PrintStream out) {
    try (SparkProgress progress = SparkProgress.start(spark, "      ... rebuilding " + table, out::println)) {
      return rebuild(table, fromSnapshot, out);
    }
  }

  private Result rebuild(String table, OptionalLong fromSnapshot, PrintStream out) {
    Target target = target(table, fromSnapshot);
    String checkpoint = buildShadow(target, fromSnapshot, out);
    out.println("[2/4] validating " + target.shadow());
    validateShadow(target, out);
    out.println("[3/4] catching up with bronze once more");
    catchUp(target.shadowEntity(), target.catalog(), target.shadowQuarantine(), checkpoint);
    out.println("[4/4] switching " + target.live() + " to the rebuilt content");
    return switchToShadow(target, checkpoint, fromSnapshot, out);
  }

  /** The tables a rebuild reads and writes: the live table, its shadow, and their quarantines. */
  private record Target(SilverEntity entity, String catalog, TableAddress bronze, String live, boolean liveExists,
      String quarantine, SilverEntity shadowEntity, String shadow, String shadowQuarantine,
      TableName shadowQuarantineName) {}

  private Target target(String table, OptionalLong fromSnapshot) {
    SilverEntity entity = entityOf(config, table);
    LakehouseSession.registerCatalog(spark, config.catalog());
    String catalog = config.catalog().name();
    TableAddress bronze = SilverLayout.of(config).bronze(entity.source());
    if (!bronze.exists(spark)) {
      throw new IllegalStateException("bronze table " + bronze + " (the source of entity " + entity.name()
          + ") does not exist");
    }
    String live = catalog + "." + entity.table();
    boolean liveExists = spark.catalog().tableExists(live);
    if (fromSnapshot.isPresent() && !liveExists) {
      throw new IllegalArgumentException(live + " does not exist, so there is no snapshot to start from");
    }
    TableName quarantineName = config.silver().quarantine();
    String quarantine = catalog + "." + quarantineName;
    SilverTables.createQuarantineTable(spark, TableAddress.iceberg(catalog, quarantineName));

    TableName shadowName = new TableName(entity.table().namespace(), entity.table().table() + "__rebuild");
    TableName shadowQuarantineName = new TableName(quarantineName.namespace(),
        quarantineName.table() + "__" + entity.name() + "__rebuild");
    String shadow = catalog + "." + shadowName;
    String shadowQuarantine = catalog + "." + shadowQuarantineName;
    SilverEntity shadowEntity = entity.withTable(shadowName);
    return new Target(entity, catalog, bronze, live, liveExists, quarantine, shadowEntity, shadow, shadowQuarantine,
        shadowQuarantineName);
  }

  /**
   * Step 1: a shadow table of the live one, empty or as of {@code fromSnapshot}, with a checkpoint of its own, caught
   * up with bronze. Returns the checkpoint.
   */
  private String buildShadow(Target target, OptionalLong fromSnapshot, PrintStream out) {
    spark.sql("DROP TABLE IF EXISTS " + target.shadow() + " PURGE");
    spark.sql("DROP TABLE IF EXISTS " + target.shadowQuarantine() + " PURGE");
    SilverTables.createQuarantineTable(spark, TableAddress.iceberg(target.catalog(), target.shadowQuarantineName()));
    String checkpoint;
    var hadoop = spark.sparkContext().hadoopConfiguration();
    if (fromSnapshot.isPresent()) {
      Table liveTable = load(target.live());
      StreamRewind.Rewind rewind = StreamRewind.to(config, target.entity(), StreamRewind.writtenBy(liveTable,
          fromSnapshot.getAsLong(), target.entity()), StreamRewind.icebergBronze(spark, target.bronze()), "rebuild",
          hadoop);
      checkpoint = rewind.checkpoint();
      out.printf("[1/4] building %s from %s as of snapshot %d (batch %d of %s), then the bronze changes after it%n",
          target.shadow(), target.live(), fromSnapshot.getAsLong(), rewind.batch(), rewind.fromCheckpoint());
      ShadowTables.copyOf(spark, target.entity(), liveTable, target.live(), fromSnapshot.getAsLong(), target.shadow(),
          ShadowTables.stateAt(liveTable, rewind.committedMillis()), checkpoint);
      // Columns the config added since.
      SilverTables.createEntityTable(spark, TableAddress.iceberg(target.catalog(), target.shadowEntity().table()),
          target.shadowEntity(), Optional::empty);
      QuarantineRows.asOf(spark, TableAddress.iceberg(target.catalog(), config.silver().quarantine()),
          target.entity().name(), rewind)
          .createOrReplaceTempView("tributary_quarantine_then");
      spark.sql("INSERT INTO " + target.shadowQuarantine() + " SELECT * FROM tributary_quarantine_then");
    } else {
      checkpoint = SilverCheckpoints.next(config, target.entity(), "rebuild");
      out.printf("[1/4] building %s from all of %s with the entity's current config%n", target.shadow(),
          target.bronze());
      ChangeDecoder decoder = ChangeDecoder.of(target.entity(),
          () -> new SchemaRegistryClient(config.schemaRegistry()));
      if (!SilverTables.createEntityTable(spark, TableAddress.iceberg(target.catalog(), target.shadowEntity().table()),
          target.shadowEntity(), () -> StreamShape.fromBronze(new BronzeFeed(spark, target.bronze()),
              target.entity(), decoder, target.live()))) {
        throw new IllegalStateException(target.bronze() + " has no change events to take the columns and key of "
            + target.live() + " from (the entity's config leaves them to the change stream); nothing to rebuild yet");
      }
      spark.sql("ALTER TABLE " + target.shadow() + " SET TBLPROPERTIES ('" + SilverCheckpoints.PROPERTY + "' = '"
          + checkpoint + "')");
    }
    out.println("      checkpoint " + checkpoint);
    catchUp(target.shadowEntity(), target.catalog(), target.shadowQuarantine(), checkpoint);
    return checkpoint;
  }

  /** Step 2: the shadow's keys are unique and it holds rows when bronze does; else the rebuild stops here. */
  private void validateShadow(Target target, PrintStream out) {
    String catalog = target.catalog();
    ShadowValidation.check(spark, target.entity(), TableAddress.iceberg(catalog, target.shadowEntity().table()),
        TableAddress.iceberg(catalog, target.shadowQuarantineName()), target.liveExists()
            ? Optional.of(TableAddress.iceberg(catalog, target.entity().table())) : Optional.empty(),
        spark.table(target.bronze().sqlName()), out);
  }

  /**
   * Step 4: the live table takes the shadow's rows and checkpoint in one validated commit (or is created from the
   * shadow), the entity's quarantine rows likewise; the shadow goes.
   */
  private Result switchToShadow(Target target, String checkpoint, OptionalLong fromSnapshot, PrintStream out) {
    var hadoop = spark.sparkContext().hadoopConfiguration();
    CheckpointFiles files = new CheckpointFiles(checkpoint, hadoop);
    Map<String, String> summary = new LinkedHashMap<>();
    summary.put("tributary.silver.rebuilt-from", fromSnapshot.isPresent()
        ? "snapshot " + fromSnapshot.getAsLong() + " and " + target.bronze() : "all of " + target.bronze());
    OptionalLong previous = OptionalLong.empty();
    long previousRows = 0;
    if (target.liveExists()) {
      Table liveTable = load(target.live());
      if (liveTable.currentSnapshot() != null) {
        previous = OptionalLong.of(liveTable.currentSnapshot().snapshotId());
        // From the snapshot summary, not a scan: the table being replaced may be damaged (files deleted under it).
        previousRows = SnapshotRows.of(liveTable.currentSnapshot());
      }
    }
    Table shadowTable = load(target.shadow());
    Map<String, String> properties = new LinkedHashMap<>(shadowTable.properties());
    properties.put(SilverCheckpoints.PROPERTY, checkpoint);
    properties.put(SilverCheckpoints.SWITCHING, "rebuild to " + checkpoint);
    if (target.liveExists()) {
      int rounds = switchLive(target.shadowEntity(), target.catalog(), target.shadowQuarantine(), checkpoint, files,
          summary, target.live(), target.shadow(), properties);
      if (rounds > 1) {
        out.printf("      %s received %d commit(s) of a batch in flight after the fence; caught up with them%n",
            target.live(), rounds - 1);
      }
    } else {
      // Nothing can commit to a table that does not exist yet; a stream starting meanwhile waits for the mark to go.
      summary.putAll(batchOf(files));
      String statement = "CREATE TABLE " + target.live() + " USING iceberg PARTITIONED BY ("
          + ShadowTables.partitioning(target.entity(), shadowTable) + ") TBLPROPERTIES ("
          + ShadowTables.sqlProperties(shadowTable, properties) + ") AS SELECT * FROM " + target.shadow();
      CommitMetadata.withCommitProperties(summary, () -> spark.sql(statement), RuntimeException.class);
    }
    // The entity's quarantine rows, in one commit.
    CommitMetadata.withCommitProperties(summary, () -> {
      spark.table(target.shadowQuarantine()).writeTo(target.quarantine())
          .overwrite(col("entity").equalTo(lit(target.entity().name())));
      return null;
    }, RuntimeException.class);
    LiveSwitch.release(load(target.live()));
    Table rebuilt = load(target.live());
    // From the snapshot's summary, as the rows it had before: no scan of the table the switch just wrote.
    long rows = SnapshotRows.of(rebuilt.currentSnapshot());
    spark.sql("DROP TABLE IF EXISTS " + target.shadow() + " PURGE");
    spark.sql("DROP TABLE IF EXISTS " + target.shadowQuarantine() + " PURGE");
    previous.ifPresent(id -> out.println("The previous content stays readable: SELECT * FROM " + target.live()
        + " VERSION AS OF " + id));
    out.println("Silver streams of entity " + target.entity().name() + " continue from " + checkpoint
        + " (a running silver job switches by itself)"
        + (target.liveExists() ? "; the previous checkpoint is no longer used" : ""));
    return new Result(target.live(), "snapshot", previous, rebuilt.currentSnapshot().snapshotId(), previousRows, rows,
        checkpoint);
  }

  /**
   * Switches an existing live table ({@link LiveSwitch}): fences it, then replaces its rows with the shadow's once
   * nothing was committed to it since the shadow last caught up (the catch-up before the fence keeps this one short,
   * and so the time the live table's streams wait). A batch the live stream had in flight when the fence came may
   * commit once more; the shadow then catches up with it and the replacement is tried again.
   *
   * @return the tries it took
   */
  private int switchLive(SilverEntity shadowEntity, String catalog, String shadowQuarantine, String checkpoint,
      CheckpointFiles files, Map<String, String> summary, String live, String shadow, Map<String, String> properties) {
    LiveSwitch.fence(load(live), load(shadow), properties);
    for (int round = 1; ; round++) {
      Table liveTable = load(live);
      OptionalLong seen = liveTable.currentSnapshot() == null ? OptionalLong.empty()
          : OptionalLong.of(liveTable.currentSnapshot().snapshotId());
      // After the snapshot is read: whatever the live table holds by then, the shadow catches up to at least.
      catchUp(shadowEntity, catalog, shadowQuarantine, checkpoint);
      Map<String, String> commit = new LinkedHashMap<>(summary);
      commit.putAll(batchOf(files));
      LiveSwitch.Outcome outcome = CommitMetadata.withCommitProperties(commit,
          () -> LiveSwitch.replaceContent(spark, shadow, live, seen), RuntimeException.class);
      if (outcome == LiveSwitch.Outcome.REPLACED) {
        summary.putAll(commit);
        return round;
      }
      if (round == CATCH_UP_ROUNDS) {
        throw new IllegalStateException(live + " kept receiving commits after it was marked as being switched ("
            + CATCH_UP_ROUNDS + " rounds): is a silver job with another checkpoint writing to it? Stop it and run"
            + " the rebuild again; until then streams of the entity wait (property " + SilverCheckpoints.SWITCHING
            + ")");
      }
    }
  }

  /** The stream and batch the shadow's checkpoint has committed last, as commit properties. */
  private static Map<String, String> batchOf(CheckpointFiles files) {
    return Map.of(StreamCommits.STREAM_ID, files.queryId(), StreamCommits.BATCH_ID,
        String.valueOf(files.lastBatch("commits").orElse(InitialLoad.BATCH_ID)));
  }

  private void catchUp(SilverEntity shadowEntity, String catalog, String shadowQuarantine, String checkpoint) {
    new StreamSupervisor(spark, SilverMergeJob.RESTARTS).runUntilCaughtUp(List.of(new EntityStream(spark,
        shadowEntity, config.schemaRegistry(), SilverLayout.icebergSilver(config), TableAddress.iceberg(catalog,
            TableName.parseText(shadowQuarantine.substring(catalog.length() + 1))), checkpoint, true,
        "silver-" + shadowEntity.name() + "-rebuild")));
  }

  private Table load(String table) {
    try {
      return Spark3Util.loadIcebergTable(spark, table);
    } catch (Exception e) {
      throw new IllegalStateException("cannot load " + table + ": " + e.getMessage(), e);
    }
  }
}
