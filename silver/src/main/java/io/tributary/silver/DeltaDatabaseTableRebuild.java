package io.tributary.silver;

import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.DatabaseTables;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.SilverCheckpoints;
import io.tributary.common.lakehouse.SparkProgress;
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
 * Rebuilds one Delta table of a database block while the database's stream goes on with the others, as
 * {@link DatabaseTableRebuild} does an Iceberg one: a shadow Delta table built from the records of the table's topic
 * in bronze, or from an earlier version of the table and the topic's records after the batch that version holds;
 * validated; then switched in. The switch marks the live table (the database's stream waits before merging into
 * it), catches the shadow up once more, and, once nothing was committed to the live table meanwhile, overwrites its
 * rows and columns with the shadow's in one commit that records the database stream's latest planned batch as this
 * table's: once the mark goes, the stream skips that batch for this table and goes on after it. A batch in flight at
 * the mark that commits meanwhile, or during the overwrite (Delta's conflict check then fails it), makes the shadow
 * catch up and the overwrite be tried again. An overwrite, not a replacement: the table keeps its id.
 */
public final class DeltaDatabaseTableRebuild {
  private static final int SWITCH_ROUNDS = 5;

  private final SparkSession spark;
  private final TributaryConfig config;
  private final SilverLayout layout;

  public DeltaDatabaseTableRebuild(SparkSession spark, TributaryConfig config) {
    this.spark = spark;
    this.config = config;
    this.layout = SilverLayout.of(config);
  }

  /**
   * Rebuilds the table.
   *
   * @param fromVersion an earlier version of the live table to start from instead of an empty table; the changes of
   *     its topic after the batch of the database's stream that version holds are applied again. This is also how
   *     one table of a database is rolled back.
   */
  public SilverRebuild.Result run(String table, OptionalLong fromVersion, PrintStream out) {
    try (SparkProgress progress = SparkProgress.start(spark, "      ... rebuilding " + table, out::println)) {
      return rebuild(table, fromVersion, out);
    }
  }

  private SilverRebuild.Result rebuild(String table, OptionalLong fromVersion, PrintStream out) {
    LakehouseSession.registerCatalog(spark, config.catalog());
    DatabaseTableRebuild.Member member = DatabaseTableRebuild.Member.of(spark, config, table);
    SilverEntity entity = member.entity();
    TableAddress live = layout.silver(member.name());
    TableAddress bronze = layout.bronze(member.database().source());
    TableName quarantineName = config.silver().quarantine();
    TableAddress quarantine = layout.silver(quarantineName);
    TableName shadowName = new TableName(member.name().namespace(), member.name().table() + "__rebuild");
    TableAddress shadow = layout.silver(shadowName);
    TableAddress shadowQuarantine = layout.silver(new TableName(quarantineName.namespace(), quarantineName.table()
        + "__" + member.name().table() + "__rebuild"));
    String databaseCheckpoint = SilverCheckpoints.database(config, member.database());
    DeltaSwitch.drop(spark, shadow);
    DeltaSwitch.drop(spark, shadowQuarantine);
    SilverTables.createQuarantineTable(spark, shadowQuarantine);

    String checkpoint;
    if (fromVersion.isPresent()) {
      long version = fromVersion.getAsLong();
      StreamRewind.Rewind rewind = StreamRewind.toDatabaseTable(config, member.database(), entity,
          DeltaLineage.read(spark, live).writtenBy(version, entity), StreamRewind.icebergBronze(spark, bronze),
          "rebuild", spark.sparkContext().hadoopConfiguration());
      checkpoint = rewind.checkpoint();
      out.printf("[1/4] building %s from %s as of version %d (batch %d of the database's stream), then the changes"
          + " of topic %s in %s after it%n", shadow, live, version, rewind.batch(), member.topic(), bronze);
      // The rows and properties of then (the truncates remembered then included). The shadow is not a table of the
      // database (the database's stream would take it as one); the switch gives the live table those back.
      Map<String, String> properties = new LinkedHashMap<>(DeltaSwitch.propertiesAt(spark, live, version));
      properties.remove(DatabaseTables.DATABASE);
      properties.remove(DatabaseTables.SOURCE_TOPIC);
      properties.remove(SilverCheckpoints.SWITCHING);
      properties.put(SilverCheckpoints.PROPERTY, checkpoint);
      spark.sql("CREATE TABLE " + shadow.sqlName() + " USING delta TBLPROPERTIES (" + DeltaSwitch.literals(properties)
          + ") AS SELECT * FROM " + live.sqlName() + " VERSION AS OF " + version);
      // Columns the config added since.
      SilverTables.createEntityTable(spark, shadow, entity.withTable(shadowName), Optional::empty);
      QuarantineRows.asOf(spark, quarantine, entity.name(), rewind).write().format("delta")
          .mode("append").save(shadowQuarantine.deltaPath());
    } else {
      checkpoint = databaseCheckpoint + "@rebuild-" + member.name().table() + "-" + System.currentTimeMillis();
      out.printf("[1/4] building %s from the records of topic %s in %s%n", shadow, member.topic(), bronze);
      ChangeDecoder decoder = ChangeDecoder.of(entity, () -> new SchemaRegistryClient(config.schemaRegistry()));
      if (!SilverTables.createEntityTable(spark, shadow, entity.withTable(shadowName), () -> StreamShape.fromRecords(
          member.records(spark, bronze), entity, decoder, "the change events of topic " + member.topic() + " in "
              + bronze, live.toString()))) {
        throw new IllegalStateException(bronze + " has no change events of topic " + member.topic()
            + "; nothing to rebuild");
      }
      SilverTable.open(spark, shadow).setProperty(SilverCheckpoints.PROPERTY, checkpoint);
    }
    out.println("      checkpoint " + checkpoint);
    EntityStream shadowStream = new EntityStream(spark, entity.withTable(shadowName), config.schemaRegistry(), layout,
        shadowQuarantine, checkpoint, true, "silver-" + entity.name() + "-rebuild").onlyTopic(member.topic());
    catchUp(shadowStream);

    out.println("[2/4] validating " + shadow);
    ShadowValidation.check(spark, entity, shadow, shadowQuarantine, Optional.of(live), member.records(spark, bronze),
        out);

    out.println("[3/4] switching " + live + " to the rebuilt content");
    long previous = DeltaSwitch.version(spark, live);
    long previousRows = DeltaSwitch.rowsAt(spark, live, previous);
    Map<String, String> properties = new LinkedHashMap<>(SilverTable.open(spark, shadow).properties());
    properties.remove(SilverCheckpoints.PROPERTY); // the table stays the database stream's
    properties.put(DatabaseTables.DATABASE, member.database().name());
    properties.put(DatabaseTables.SOURCE_TOPIC, member.topic());
    properties.put(SilverCheckpoints.SWITCHING, "rebuild of " + live);
    DeltaSwitch.fence(spark, live, properties);
    CheckpointFiles stream = new CheckpointFiles(databaseCheckpoint, spark.sparkContext().hadoopConfiguration());
    Map<String, String> commit = switchLive(shadowStream, stream, member.name(), shadow, live, out);
    long version = DeltaSwitch.version(spark, live); // the overwrite's; the marked table takes no other commit
    // The entity's quarantine rows, recording the same batch: the stream's quarantine of it is then skipped too.
    commitAs(quarantine, commit, () -> {
      DeltaSwitch.replaceQuarantine(spark.read().format("delta").load(shadowQuarantine.deltaPath()), quarantine,
          entity.name());
      return null;
    });
    DeltaSwitch.release(spark, live);

    out.println("[4/4] done");
    long rows = DeltaSwitch.rowsAt(spark, live, version);
    DeltaSwitch.drop(spark, shadow);
    DeltaSwitch.drop(spark, shadowQuarantine);
    out.println("The previous content stays readable: SELECT * FROM " + live.sqlName() + " VERSION AS OF "
        + previous);
    fromVersion.ifPresent(id -> out.println("It holds version " + id + " and the changes after it again"));
    out.println("The stream of database " + member.database().name() + " goes on with it from " + databaseCheckpoint);
    return new SilverRebuild.Result(live.toString(), "version", OptionalLong.of(previous), version, previousRows,
        rows, databaseCheckpoint);
  }

  /**
   * Overwrites the marked live table with the shadow's rows and columns once nothing was committed to it since the
   * shadow last caught up; the commit records the database stream's latest planned batch as this table's.
   *
   * @return what the overwrite recorded, for the quarantine's commit
   */
  private Map<String, String> switchLive(EntityStream shadowStream, CheckpointFiles stream, TableName name,
      TableAddress shadow, TableAddress live, PrintStream out) {
    for (int round = 1; ; round++) {
      long seen = DeltaSwitch.version(spark, live);
      // Read before the catch-up: the shadow then holds at least everything up to the end of this batch.
      OptionalLong planned = stream.lastBatch("offsets");
      catchUp(shadowStream);
      Map<String, String> commit = planned.isEmpty() ? Map.of() : CommittedBatches.properties(
          DatabaseFanOut.tableStream(stream.queryId(), name), planned.getAsLong(),
          stream.batchEnd(planned.getAsLong()));
      if (DeltaSwitch.version(spark, live) == seen) {
        try {
          commitAs(live, commit, () -> {
            spark.read().format("delta").load(shadow.deltaPath()).write().format("delta").mode("overwrite")
                .option("overwriteSchema", "true").save(live.deltaPath());
            return null;
          });
          if (round > 1) {
            out.printf("      %s received commit(s) of a batch in flight after the mark; caught up with them%n", live);
          }
          return commit;
        } catch (RuntimeException e) {
          if (!DeltaSwitch.lostToConcurrentCommit(e)) {
            throw e;
          }
        }
      }
      if (round == SWITCH_ROUNDS) {
        throw new IllegalStateException(live + " kept receiving commits after it was marked as being switched ("
            + SWITCH_ROUNDS + " rounds); run the rebuild again. Until then the database's stream waits before this"
            + " table (property " + SilverCheckpoints.SWITCHING + ")");
      }
    }
  }

  /** Runs the statement as a commit of the database stream's batch {@code commit} names (as is, when empty). */
  private void commitAs(TableAddress table, Map<String, String> commit, Callable<Void> statement) {
    try {
      if (commit.isEmpty()) {
        statement.call();
      } else {
        SilverTable.open(spark, table).commit(commit, statement);
      }
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) { // Spark throws its checked SparkException undeclared
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  private void catchUp(EntityStream shadowStream) {
    new StreamSupervisor(spark, SilverMergeJob.RESTARTS).runUntilCaughtUp(List.of(shadowStream));
  }
}
