package io.tributary.silver;

import io.tributary.common.config.InvalidConfigException;
import io.tributary.common.config.SchemaRegistryConfig;
import io.tributary.common.config.SilverDatabase;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableName;
import io.tributary.common.lakehouse.DatabaseTables;
import io.tributary.common.lakehouse.LocalCheckpoints;
import io.tributary.common.lakehouse.SilverCheckpoints;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The foreachBatch body of a database: the batch's bronze rows are read once, then each topic's rows go to the
 * {@link CdcMerge} of its table, created from the topic's own change events the first time they are seen. Each table
 * records the stream's batch under its own stream id ({@code <query id>/<table>}), so a batch replayed after a crash
 * between two tables' commits skips the tables that have it and applies it to the others.
 *
 * <p>A topic whose records state no columns (not Debezium change events, or JSON without schemas, for a table without
 * a {@code schema} of its own) goes to quarantine with the reason, batch after batch, and the stream goes on. A table
 * without a primary key (a null Kafka key, and no {@code key} of its own) is not kept: it is logged once per run, and
 * its changes stay in bronze.
 */
final class DatabaseFanOut implements MicroBatchTarget {
  private static final Logger LOG = LoggerFactory.getLogger(DatabaseFanOut.class);

  private final SparkSession spark;
  private final SilverDatabase database;
  private final SchemaRegistryConfig registry;
  private final String catalog;
  private final String quarantine;
  private final String checkpoint;
  private final String name;
  /** Per topic seen: its table, or empty for a topic the database does not keep. */
  private final Map<String, Optional<TopicTable>> topics = new HashMap<>();

  /** A source table's entity and the merge into its silver table. */
  private record TopicTable(SilverEntity entity, CdcMerge merge) {}

  /**
   * @param quarantine the quarantine table's SQL name
   * @param checkpoint the database stream's checkpoint
   * @param name the stream's name, for the log
   */
  DatabaseFanOut(SparkSession spark, SilverDatabase database, SchemaRegistryConfig registry, String catalog,
      String quarantine, String checkpoint, String name) {
    this.spark = spark;
    this.database = database;
    this.registry = registry;
    this.catalog = catalog;
    this.quarantine = quarantine;
    this.checkpoint = checkpoint;
    this.name = name;
  }

  /** The foreachBatch body: the batch of the running streaming query. */
  void apply(Dataset<Row> batch, long batchId) throws Exception {
    apply(batch, batch.sparkSession().sparkContext().getLocalProperty("sql.streaming.queryId"), batchId);
  }

  @Override
  public void apply(Dataset<Row> batch, String streamId, long batchId) throws Exception {
    long started = System.nanoTime();
    // Read once: each table's merge takes its topic's rows from here instead of scanning the batch again.
    Dataset<Row> rows = batch.localCheckpoint();
    try {
      List<String> present = rows.select("topic").distinct().as(Encoders.STRING()).collectAsList().stream()
          .sorted().toList();
      int applied = 0;
      for (String topic : present) {
        Dataset<Row> ofTopic = rows.where(functions.col("topic").equalTo(topic));
        Optional<TopicTable> table = tableOf(topic, ofTopic, streamId, batchId);
        if (table.isPresent()) {
          awaitSwitch(catalog + "." + table.get().entity().table());
          table.get().merge().apply(ofTopic, tableStream(streamId, table.get().entity().table()), batchId);
          applied++;
        }
      }
      LOG.info("{} batch {}: {} topics, {} tables merged in {} ms", name, batchId, present.size(), applied,
          (System.nanoTime() - started) / 1_000_000);
    } finally {
      LocalCheckpoints.release(rows);
    }
  }

  @Override
  public boolean committed(SparkSession session, String streamId, long batchId) {
    for (TableName table : DatabaseTables.of(session, catalog, database).keySet()) {
      if (CommittedBatches.isCommitted(load(catalog + "." + table), tableStream(streamId, table), batchId)) {
        return true;
      }
    }
    return false;
  }

  /** The id a table's commits carry for this stream: one stream, many tables, each with its own record. */
  static String tableStream(String streamId, TableName table) {
    return streamId + "/" + table;
  }

  /**
   * The table of {@code topic}, made from {@code records} (its rows in this batch) the first time; empty for a topic
   * the database does not keep, and, in this batch only, for one whose records cannot state its columns (they are
   * quarantined) or that has only Kafka tombstones so far.
   */
  private Optional<TopicTable> tableOf(String topic, Dataset<Row> records, String streamId, long batchId)
      throws Exception {
    Optional<TopicTable> known = topics.get(topic);
    if (known != null) {
      return known;
    }
    Optional<SilverEntity> kept = database.entityFor(topic);
    if (kept.isEmpty()) {
      LOG.info("{}: topic {} is not kept (excluded, or outside the database's topics)", name, topic);
      topics.put(topic, Optional.empty());
      return Optional.empty();
    }
    SilverEntity entity = kept.get();
    String table = catalog + "." + entity.table();
    ChangeDecoder decoder = ChangeDecoder.of(entity, () -> new SchemaRegistryClient(registry));
    boolean exists;
    try {
      exists = SilverTables.createEntityTable(spark, catalog, entity, () -> StreamShape.fromRecords(records, entity,
          decoder, "the change events of topic " + topic, table));
    } catch (StreamShape.Unknown unknown) {
      if (unknown.reason() == StreamShape.Unknown.Reason.NO_KEY) {
        LOG.warn("{}: source table {} is not kept in silver: {}. Its changes stay in bronze.", name, topic,
            unknown.getMessage());
        topics.put(topic, Optional.empty());
      } else {
        LOG.warn("{} batch {}: the records of topic {} go to quarantine: {}", name, batchId, topic,
            unknown.getMessage());
        Optional<String> bronzeEnd = new CheckpointFiles(checkpoint, spark.sessionState().newHadoopConf())
            .batchEnd(batchId);
        String stream = tableStream(streamId, entity.table());
        QuarantineWriter.append(spark, quarantine, entity.name(), records.selectExpr("*", "'decode' AS stage",
            JsonFields.literal(unknown.getMessage()) + " AS error"), stream, batchId, bronzeEnd,
            CommittedBatches.properties(stream, batchId, bronzeEnd));
      }
      return Optional.empty();
    }
    if (!exists) {
      return Optional.empty();
    }
    claim(entity, topic, table);
    Optional<TopicTable> made = Optional.of(new TopicTable(entity, new CdcMerge(entity, registry, table, quarantine,
        checkpoint, checkpoint)));
    topics.put(topic, made);
    return made;
  }

  /** Waits while a rebuild of the table switches it (the rebuild then records this stream's batch in it). */
  private void awaitSwitch(String table) {
    Table silver = load(table);
    long deadline = System.nanoTime() + SWITCH_WAIT.toNanos();
    while (silver.properties().containsKey(SilverCheckpoints.SWITCHING)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(name + ": " + table + " is marked as being switched by a rebuild ("
            + silver.properties().get(SilverCheckpoints.SWITCHING) + ") for more than " + SWITCH_WAIT.toMinutes()
            + " minutes; if that command failed, run it again");
      }
      LOG.info("{}: waiting for the switch of {} to finish", name, table);
      try {
        Thread.sleep(1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(name + ": interrupted while waiting for a switch", e);
      }
      silver.refresh();
    }
  }

  private static final java.time.Duration SWITCH_WAIT = java.time.Duration.ofMinutes(10);

  /**
   * Records in the table which database and topic it is made from, the first time; refuses a table made from another
   * topic, which the template gave the same name.
   */
  private void claim(SilverEntity entity, String topic, String table) {
    Table silver = load(table);
    String claimed = silver.properties().get(DatabaseTables.SOURCE_TOPIC);
    if (claimed == null) {
      silver.updateProperties().set(DatabaseTables.DATABASE, database.name())
          .set(DatabaseTables.SOURCE_TOPIC, topic).commit();
    } else if (!claimed.equals(topic)) {
      throw new InvalidConfigException(List.of(database.configPath() + ".table: topics " + claimed + " and " + topic
          + " both become table " + entity.table() + " under \"" + database.template() + "\"; give one of them its"
          + " own table under tables { \"" + io.tributary.common.config.TableTemplate.SourceTable.of(topic)
          + "\" { table = ... } }, or exclude it"));
    }
  }

  private Table load(String table) {
    try {
      return Spark3Util.loadIcebergTable(spark, table);
    } catch (Exception e) {
      throw new IllegalStateException("cannot load " + table + ": " + e.getMessage(), e);
    }
  }
}
