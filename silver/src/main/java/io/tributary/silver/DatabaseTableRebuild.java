package io.tributary.silver;

import io.tributary.common.lakehouse.TableAddress;
import io.tributary.common.lakehouse.SparkProgress;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.tributary.common.config.SilverDatabase;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.DatabaseTables;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.SilverCheckpoints;
import io.tributary.common.lakehouse.StreamSupervisor;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Rebuilds one table of a database from bronze while the database's stream goes on with the others:
 *
 * <ol>
 *   <li>build a shadow table from the records of the table's topic in bronze (an initial load, then a stream of its
 *       own until caught up), with the table's current settings; or, from an earlier snapshot, copy the table as it
 *       was then and stream the topic's records from where the database's stream stood then;
 *   <li>check that its keys are unique;
 *   <li>fence the live table: the database's stream waits before it merges into a table marked as being switched;
 *   <li>catch the shadow up with bronze once more, so that it holds at least everything up to the end of the database
 *       stream's latest planned batch, then replace the live rows with the shadow's in one commit that records that
 *       batch as this table's (the stream, once the mark goes, skips it for this table and goes on from there; a
 *       change it applies again is older than or as old as the table's row and changes nothing), and the entity's
 *       quarantine rows in another;
 *   <li>remove the mark.
 * </ol>
 *
 * A batch the database's stream had already begun to merge into the table when the fence came may still commit; the
 * replacement then fails (Iceberg validates that nothing was committed since the shadow last caught up) and is tried
 * again after another catch-up.
 */
public final class DatabaseTableRebuild {
  private static final int SWITCH_ROUNDS = 5;

  private final SparkSession spark;
  private final TributaryConfig config;

  public DatabaseTableRebuild(SparkSession spark, TributaryConfig config) {
    this.spark = spark;
    this.config = config;
  }

  /** A table of a database block: its database, the topic it is made from, and the settings it has as an entity. */
  record Member(TableName name, SilverDatabase database, String topic, SilverEntity entity) {
    /** Fails with {@link IllegalArgumentException} naming what is wrong when {@code table} is no such table. */
    static Member of(SparkSession spark, TributaryConfig config, String table) {
      TableName name = TableName.parseText(table);
      SilverDatabase database = config.silver().databaseOf(name).orElseThrow(() -> new IllegalArgumentException(
          table + " is not a table of any database in tributary.silver.databases"));
      String topic = DatabaseTables.of(spark, config, database).get(name);
      if (topic == null) {
        throw new IllegalArgumentException(table + " is not a table of database '" + database.name() + "' yet (no"
            + " table of that name records it as its own); silver creates it when its topic's first change"
            + " arrives");
      }
      SilverEntity entity = database.entityFor(topic).orElseThrow(() -> new IllegalArgumentException("topic "
          + topic + " of " + table + " is no longer kept by " + database.configPath() + " (excluded, or outside its"
          + " topics)"));
      return new Member(name, database, topic, entity);
    }

    /** The records of its topic in the database's bronze table. */
    Dataset<Row> records(SparkSession spark, TableAddress bronze) {
      return spark.table(bronze.sqlName()).where(col("topic").equalTo(topic));
    }
  }

  /** Rebuilds the table from all of bronze. */
  public SilverRebuild.Result run(String table, PrintStream out) {
    return run(table, OptionalLong.empty(), out);
  }

  /**
   * Rebuilds the table.
   *
   * @param fromSnapshot an earlier snapshot of the live table to start from instead of an empty table; the changes of
   *     its topic after the batch of the database's stream that snapshot holds are applied again. This is also how
   *     one table of a database is rolled back: its stream is shared, so the table goes back by being rebuilt from
   *     that snapshot and switched while the stream goes on.
   */
  public SilverRebuild.Result run(String table, OptionalLong fromSnapshot, PrintStream out) {
    try (SparkProgress progress = SparkProgress.start(spark, "      ... rebuilding " + table, out::println)) {
      return rebuild(table, fromSnapshot, out);
    }
  }

  private SilverRebuild.Result rebuild(String table, OptionalLong fromSnapshot, PrintStream out) {
    LakehouseSession.registerCatalog(spark, config.catalog());
    String catalog = config.catalog().name();
    Member member = Member.of(spark, config, table);
    TableName name = member.name();
    SilverDatabase database = member.database();
    String topic = member.topic();
    SilverEntity entity = member.entity();
    String live = catalog + "." + name;
    SilverLayout layout = SilverLayout.icebergSilver(config);
    TableAddress bronze = layout.bronze(database.source());
    String quarantine = catalog + "." + config.silver().quarantine();
    TableName shadowName = new TableName(name.namespace(), name.table() + "__rebuild");
    TableName shadowQuarantineName = new TableName(config.silver().quarantine().namespace(),
        config.silver().quarantine().table() + "__" + name.table() + "__rebuild");
    String shadow = catalog + "." + shadowName;
    String shadowQuarantine = catalog + "." + shadowQuarantineName;
    spark.sql("DROP TABLE IF EXISTS " + shadow + " PURGE");
    spark.sql("DROP TABLE IF EXISTS " + shadowQuarantine + " PURGE");
    SilverTables.createQuarantineTable(spark, TableAddress.iceberg(catalog, shadowQuarantineName));
    SilverEntity shadowEntity = entity.withTable(shadowName);
    String databaseCheckpoint = SilverCheckpoints.database(config, database);

    String checkpoint;
    if (fromSnapshot.isPresent()) {
      Table liveTable = load(live);
      StreamRewind.Rewind rewind = StreamRewind.toDatabaseTable(config, database, entity,
          StreamRewind.writtenBy(liveTable, fromSnapshot.getAsLong(), entity), StreamRewind.icebergBronze(spark,
          bronze), "rebuild", spark.sparkContext().hadoopConfiguration());
      checkpoint = rewind.checkpoint();
      out.printf("[1/4] building %s from %s as of snapshot %d (batch %d of the database's stream), then the changes"
          + " of topic %s in %s after it%n", shadow, live, fromSnapshot.getAsLong(), rewind.batch(), topic, bronze);
      Map<String, String> properties = ShadowTables.stateAt(liveTable, rewind.committedMillis());
      // The shadow is not a table of the database (the database's stream would take it as one); the switch gives
      // the live table these back.
      properties.remove(DatabaseTables.DATABASE);
      properties.remove(DatabaseTables.SOURCE_TOPIC);
      ShadowTables.copyOf(spark, entity, liveTable, live, fromSnapshot.getAsLong(), shadow, properties, checkpoint);
      QuarantineRows.asOf(spark, TableAddress.iceberg(catalog, config.silver().quarantine()), entity.name(), rewind)
          .createOrReplaceTempView("tributary_quarantine_then");
      spark.sql("INSERT INTO " + shadowQuarantine + " SELECT * FROM tributary_quarantine_then");
    } else {
      checkpoint = databaseCheckpoint + "@rebuild-" + name.table() + "-" + System.currentTimeMillis();
      out.printf("[1/4] building %s from the records of topic %s in %s%n", shadow, topic, bronze);
      ChangeDecoder decoder = ChangeDecoder.of(entity, () -> new SchemaRegistryClient(config.schemaRegistry()));
      if (!SilverTables.createEntityTable(spark, TableAddress.iceberg(catalog, shadowEntity.table()), shadowEntity, () -> StreamShape.fromRecords(
          member.records(spark, bronze), entity, decoder, "the change events of topic "
              + topic + " in " + bronze, live))) {
        throw new IllegalStateException(bronze + " has no change events of topic " + topic + "; nothing to rebuild");
      }
      spark.sql("ALTER TABLE " + shadow + " SET TBLPROPERTIES ('" + SilverCheckpoints.PROPERTY + "' = '"
          + checkpoint + "')");
    }
    out.println("      checkpoint " + checkpoint);
    EntityStream shadowStream = new EntityStream(spark, shadowEntity, config.schemaRegistry(),
        layout, TableAddress.iceberg(catalog, shadowQuarantineName), checkpoint, true,
        "silver-" + entity.name() + "-rebuild").onlyTopic(topic);
    catchUp(shadowStream);

    out.println("[2/4] validating " + shadow);
    ShadowValidation.check(spark, entity, TableAddress.iceberg(catalog, shadowName), TableAddress.iceberg(catalog,
        shadowQuarantineName), Optional.of(TableAddress.iceberg(catalog, name)), member.records(spark, bronze), out);

    out.println("[3/4] switching " + live + " to the rebuilt content");
    Table liveTable = load(live);
    OptionalLong previous = liveTable.currentSnapshot() == null ? OptionalLong.empty()
        : OptionalLong.of(liveTable.currentSnapshot().snapshotId());
    long previousRows = previous.isEmpty() ? 0 : SnapshotRows.of(liveTable.currentSnapshot());
    Map<String, String> properties = new LinkedHashMap<>(load(shadow).properties());
    properties.remove(SilverCheckpoints.PROPERTY); // the table stays the database stream's
    properties.put(DatabaseTables.DATABASE, database.name());
    properties.put(DatabaseTables.SOURCE_TOPIC, topic);
    properties.put(SilverCheckpoints.SWITCHING, "rebuild of " + live);
    LiveSwitch.fence(liveTable, load(shadow), properties);
    CheckpointFiles stream = new CheckpointFiles(databaseCheckpoint, spark.sparkContext().hadoopConfiguration());
    Map<String, String> commit = switchLive(shadowStream, stream, name, shadow, live);
    CommitMetadata.withCommitProperties(commit, () -> {
      spark.table(shadowQuarantine).writeTo(quarantine).overwrite(col("entity").equalTo(lit(entity.name())));
      return null;
    }, RuntimeException.class);
    LiveSwitch.release(load(live));

    out.println("[4/4] done");
    Table rebuilt = load(live);
    long rebuiltRows = SnapshotRows.of(rebuilt.currentSnapshot());
    spark.sql("DROP TABLE IF EXISTS " + shadow + " PURGE");
    spark.sql("DROP TABLE IF EXISTS " + shadowQuarantine + " PURGE");
    previous.ifPresent(id -> out.println("The previous content stays readable: SELECT * FROM " + live
        + " VERSION AS OF " + id));
    fromSnapshot.ifPresent(id -> out.println("It holds snapshot " + id + " and the changes after it again"));
    out.println("The stream of database " + database.name() + " goes on with it from " + databaseCheckpoint);
    return new SilverRebuild.Result(live, "snapshot", previous, rebuilt.currentSnapshot().snapshotId(), previousRows,
        rebuiltRows, databaseCheckpoint);
  }

  /**
   * Replaces the live rows once nothing was committed to the live table since the shadow last caught up; the commit
   * records the database stream's latest planned batch as this table's.
   *
   * @return the commit properties of the replacement, for the quarantine's commit
   */
  private Map<String, String> switchLive(EntityStream shadowStream, CheckpointFiles stream, TableName name,
      String shadow, String live) {
    for (int round = 1; round <= SWITCH_ROUNDS; round++) {
      Table liveTable = load(live);
      OptionalLong seen = liveTable.currentSnapshot() == null ? OptionalLong.empty()
          : OptionalLong.of(liveTable.currentSnapshot().snapshotId());
      // Read before the catch-up: the shadow then holds at least everything up to the end of this batch.
      OptionalLong planned = stream.lastBatch("offsets");
      catchUp(shadowStream);
      Map<String, String> commit = new LinkedHashMap<>();
      if (planned.isPresent()) {
        commit.putAll(CommittedBatches.properties(DatabaseFanOut.tableStream(stream.queryId(), name),
            planned.getAsLong(), stream.batchEnd(planned.getAsLong())));
      }
      LiveSwitch.Outcome outcome = CommitMetadata.withCommitProperties(commit,
          () -> LiveSwitch.replaceContent(spark, shadow, live, seen), RuntimeException.class);
      if (outcome == LiveSwitch.Outcome.REPLACED) {
        return commit;
      }
    }
    throw new IllegalStateException(live + " kept receiving commits after it was marked as being switched ("
        + SWITCH_ROUNDS + " rounds); run the rebuild again. Until then the database's stream waits before this"
        + " table (property " + SilverCheckpoints.SWITCHING + ")");
  }

  private void catchUp(EntityStream shadowStream) {
    new StreamSupervisor(spark, SilverMergeJob.RESTARTS).runUntilCaughtUp(List.of(shadowStream));
  }

  private Table load(String table) {
    try {
      return Spark3Util.loadIcebergTable(spark, table);
    } catch (Exception e) {
      throw new IllegalStateException("cannot load " + table + ": " + e.getMessage(), e);
    }
  }
}
