package io.tributary.silver;

import io.tributary.common.config.SchemaRegistryConfig;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.lakehouse.CommitWindowPause;
import io.tributary.common.lakehouse.SilverCheckpoints;
import io.tributary.common.lakehouse.StreamSupervisor;
import java.util.concurrent.TimeoutException;
import io.tributary.common.lakehouse.TableAddress;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stream of one entity from its bronze table into a silver table: the checkpoint is the one the table names
 * (resolved again at every restart, so a stream follows its table through a rebuild or a rollback); a stream that
 * has never run starts with an {@link InitialLoad} from an Iceberg bronze (Delta's stream starts with the table as it
 * is); then a streaming read of bronze ({@link BronzeFeed}), a {@link CdcMerge} per
 * micro-batch.
 */
final class EntityStream implements StreamSupervisor.Supervised {
  private static final Logger LOG = LoggerFactory.getLogger(EntityStream.class);

  private final SparkSession spark;
  private final SilverEntity entity;
  private final SilverLayout layout;
  private final BronzeFeed bronze;
  private final TableAddress silver;
  private final TableAddress quarantine;
  private final String configuredCheckpoint;
  private final boolean once;
  private final String name;
  private final SchemaRegistryConfig registry;
  /** For a table of a database, whose bronze table holds every table's topic: the one topic read. */
  private final java.util.Optional<String> topic;
  private boolean started;

  /**
   * @param entity the entity, with the table this stream writes
   * @param registry where an Avro decoder fetches writer schemas
   * @param layout where bronze and silver tables are
   * @param quarantine the quarantine table
   * @param configuredCheckpoint the checkpoint of a table that names none
   * @param once stop when caught up
   * @param name the query's name (unique among the session's active queries)
   */
  EntityStream(SparkSession spark, SilverEntity entity, SchemaRegistryConfig registry, SilverLayout layout,
      TableAddress quarantine, String configuredCheckpoint, boolean once, String name) {
    this(spark, entity, registry, layout, quarantine, configuredCheckpoint, once, name, java.util.Optional.empty());
  }

  private EntityStream(SparkSession spark, SilverEntity entity, SchemaRegistryConfig registry, SilverLayout layout,
      TableAddress quarantine, String configuredCheckpoint, boolean once, String name,
      java.util.Optional<String> topic) {
    this.topic = topic;
    this.registry = registry;
    this.name = name;
    this.spark = spark;
    this.entity = entity;
    this.layout = layout;
    this.bronze = new BronzeFeed(spark, layout.bronze(entity.source()));
    this.silver = layout.silver(entity.table());
    this.quarantine = quarantine;
    this.configuredCheckpoint = configuredCheckpoint;
    this.once = once;
  }

  /** The same stream reading only the records of {@code topic} (a database's table, rebuilt on its own). */
  EntityStream onlyTopic(String topic) {
    return new EntityStream(spark, entity, registry, layout, quarantine, configuredCheckpoint, once, name,
        java.util.Optional.of(topic));
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public StreamingQuery start() {
    // Not between a rebuild's or rollback's two commits (table, then quarantine rows).
    SilverTable silverTable = SwitchMark.awaitCleared(SilverTable.open(spark, silver), name(), silver.toString(),
        java.time.Duration.ofSeconds(2));
    String fingerprint = SilverCheckpoints.fingerprint(entity);
    String recorded = silverTable.properties().get(SilverCheckpoints.CONFIG);
    if (!started) {
      // This job's config is the entity's from now on: a later switch by a tool run with another config is noticed.
      if (!fingerprint.equals(recorded)) {
        silverTable.setProperty(SilverCheckpoints.CONFIG, fingerprint);
      }
      started = true;
    } else if (recorded != null && !recorded.equals(fingerprint)) {
      throw new IllegalStateException(name() + ": " + silver + " was rebuilt or rolled back with a different config"
          + " for entity " + entity.name() + " than this job runs; it stops rather than apply the old config to the"
          + " new content. Start the silver job again with the current config.");
    }
    String checkpoint = silverTable.properties().getOrDefault(SilverCheckpoints.PROPERTY, configuredCheckpoint);
    CdcMerge entityMerge = new CdcMerge(entity, registry, silver, quarantine, checkpoint, configuredCheckpoint);
    MicroBatchTarget merge = topic.isEmpty() ? entityMerge : new MicroBatchTarget() {
      @Override
      public void apply(Dataset<Row> batch, String streamId, long batchId) throws Exception {
        entityMerge.apply(batch.where(org.apache.spark.sql.functions.col("topic").equalTo(topic.get())), streamId,
            batchId);
      }

      @Override
      public boolean committed(SparkSession session, String streamId, long batchId) {
        return entityMerge.committed(session, streamId, batchId);
      }
    };
    if (!bronze.startsFromItsSnapshot()) {
      CheckpointFiles files = new CheckpointFiles(checkpoint, spark.sparkContext().hadoopConfiguration());
      org.apache.iceberg.Table bronzeTable = bronze.iceberg();
      InitialLoad.runIfNew(spark, files, bronzeTable, bronze.name(), merge, name());
      if (once && InitialLoad.nothingAfter(files, bronzeTable)) {
        // Iceberg cannot run a --once stream whose start is bronze's end (it fails computing where to stop).
        LOG.info("{}: caught up (bronze has no new snapshot since the initial load)", name());
        return null;
      }
    }
    LOG.info("{}: {} -> {} ({}), checkpoint {}", name(), bronze, silver,
        once ? "until caught up" : "every " + entity.trigger().toMillis() + " ms", checkpoint);
    try {
      return bronze.stream(entity)
          .writeStream()
          .queryName(name())
          .option("checkpointLocation", checkpoint)
          .trigger(once ? Trigger.AvailableNow() : Trigger.ProcessingTime(entity.trigger().toMillis()))
          .foreachBatch((VoidFunction2<Dataset<Row>, Long>) (batch, batchId) -> {
            merge.apply(batch, batch.sparkSession().sparkContext().getLocalProperty("sql.streaming.queryId"),
                batchId);
            CommitWindowPause.hold(name, batchId);
          })
          .start();
    } catch (TimeoutException e) {
      throw new IllegalStateException(name() + " did not start in time", e);
    }
  }
}
