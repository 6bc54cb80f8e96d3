package io.tributary.silver;

import io.tributary.common.lakehouse.TableAddress;
import io.tributary.common.config.InvalidConfigException;
import io.tributary.common.config.SchemaRegistryConfig;
import io.tributary.common.config.SilverDatabase;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableName;
import io.tributary.common.lakehouse.DatabaseTables;
import io.tributary.common.lakehouse.LocalCheckpoints;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
  private final SilverLayout layout;
  private final TableAddress quarantine;
  private final String checkpoint;
  private final String name;
  /** Per topic seen: its table, or empty for a topic the database does not keep. */
  private final Map<String, Optional<TopicTable>> topics = new HashMap<>();

  /** A source table's entity and the merge into its silver table. */
  private record TopicTable(SilverEntity entity, CdcMerge merge) {}

  /**
   * @param quarantine the quarantine table
   * @param checkpoint the database stream's checkpoint
   * @param name the stream's name, for the log
   */
  DatabaseFanOut(SparkSession spark, SilverDatabase database, SchemaRegistryConfig registry, SilverLayout layout,
      TableAddress quarantine, String checkpoint, String name) {
    this.spark = spark;
    this.database = database;
    this.registry = registry;
    this.layout = layout;
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
      List<Runnable> merges = new ArrayList<>();
      for (String topic : present) {
        Dataset<Row> ofTopic = rows.where(functions.col("topic").equalTo(topic));
        Optional<TopicTable> table = tableOf(topic, ofTopic, streamId, batchId);
        table.ifPresent(kept -> merges.add(() -> merge(kept, ofTopic, streamId, batchId)));
      }
      int applied = merges.size();
      runAll(merges);
      LOG.info("{} batch {}: {} topics, {} tables merged in {} ms", name, batchId, present.size(), applied,
          (System.nanoTime() - started) / 1_000_000);
    } finally {
      LocalCheckpoints.release(rows);
    }
  }

  /** One table's share of the batch, in a session of its own (merges side by side must not share settings). */
  private void merge(TopicTable table, Dataset<Row> rows, String streamId, long batchId) {
    SparkSession session = sessions.poll();
    if (session == null) {
      session = ownSession(rows.sparkSession());
    }
    try {
      // A rebuild switching the table records this stream's batch in it: wait for it, then go on from there.
      TableAddress silver = layout.silver(table.entity().table());
      SwitchMark.awaitCleared(SilverTable.open(spark, silver), name, silver.toString(),
          java.time.Duration.ofSeconds(1));
      // The rows again, in this session: a merge sets session settings for its statement (BucketAlignedJoin).
      Dataset<Row> own = session.createDataFrame(rows.javaRDD(), rows.schema());
      table.merge().apply(own, tableStream(streamId, table.entity().table()), batchId);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e.getMessage(), e);
    } finally {
      sessions.offer(session);
    }
  }

  /**
   * Runs the batch's merges, {@code merge-parallelism} at a time: a table's merge is mostly the driver waiting on
   * small jobs and commits, so tables side by side use the cores better. Every merge runs to its end; the first
   * failure is then thrown (the batch fails and is replayed; tables that committed it skip it then).
   */
  private void runAll(List<Runnable> merges) throws Exception {
    int parallelism = Math.min(database.mergeParallelism(), merges.size());
    if (parallelism <= 1) {
      merges.forEach(Runnable::run);
      return;
    }
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(parallelism,
        runnable -> {
          Thread thread = new Thread(runnable, name + "-merge");
          thread.setDaemon(true);
          return thread;
        });
    try {
      List<java.util.concurrent.Future<?>> running = merges.stream().<java.util.concurrent.Future<?>>map(pool::submit)
          .toList();
      Exception first = null;
      for (java.util.concurrent.Future<?> merge : running) {
        try {
          merge.get();
        } catch (java.util.concurrent.ExecutionException e) {
          if (first == null) {
            first = e.getCause() instanceof Exception cause ? cause : e;
          }
        }
      }
      if (first != null) {
        throw first;
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** A session of the same context with the stream's settings, whose own settings no other merge sees. */
  private static SparkSession ownSession(SparkSession stream) {
    SparkSession session = stream.newSession();
    scala.jdk.javaapi.CollectionConverters.asJava(stream.conf().getAll()).forEach((key, value) -> {
      if (session.conf().isModifiable(key)) {
        session.conf().set(key, value);
      }
    });
    return session;
  }

  /** Sessions of earlier merges, reused. */
  private final java.util.Queue<SparkSession> sessions = new java.util.concurrent.ConcurrentLinkedQueue<>();

  @Override
  public boolean committed(SparkSession session, String streamId, long batchId) {
    for (TableName table : DatabaseTables.of(session, layout.tables(), layout.silverFormat(), database).keySet()) {
      if (CommittedBatches.isCommitted(SilverTable.open(session, layout.silver(table)), tableStream(streamId, table),
          batchId)) {
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
    TableAddress table = layout.silver(entity.table());
    ChangeDecoder decoder = ChangeDecoder.of(entity, () -> new SchemaRegistryClient(registry));
    boolean exists;
    try {
      exists = SilverTables.createEntityTable(spark, table, entity, () -> StreamShape.fromRecords(records, entity,
          decoder, "the change events of topic " + topic, table.toString()));
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

  /**
   * Records in the table which database and topic it is made from, the first time; refuses a table made from another
   * topic, which the template gave the same name.
   */
  private void claim(SilverEntity entity, String topic, TableAddress table) {
    SilverTable silver = SilverTable.open(spark, table);
    String claimed = silver.properties().get(DatabaseTables.SOURCE_TOPIC);
    if (claimed == null) {
      // The topic last: a table is the database's once it names its topic (DatabaseTables reads both).
      silver.setProperty(DatabaseTables.DATABASE, database.name());
      silver.setProperty(DatabaseTables.SOURCE_TOPIC, topic);
    } else if (!claimed.equals(topic)) {
      throw new InvalidConfigException(List.of(database.configPath() + ".table: topics " + claimed + " and " + topic
          + " both become table " + entity.table() + " under \"" + database.template() + "\"; give one of them its"
          + " own table under tables { \"" + io.tributary.common.config.TableTemplate.SourceTable.of(topic)
          + "\" { table = ... } }, or exclude it"));
    }
  }
}
