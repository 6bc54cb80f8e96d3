package io.tributary.silver;

import io.tributary.common.config.SchemaRegistryConfig;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.lakehouse.CommitWindowPause;
import io.tributary.common.lakehouse.SilverCheckpoints;
import io.tributary.common.lakehouse.StreamSupervisor;
import java.util.concurrent.TimeoutException;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
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
 * has never run starts with an {@link InitialLoad}; then an Iceberg streaming read of bronze, a {@link CdcMerge} per
 * micro-batch.
 */
final class EntityStream implements StreamSupervisor.Supervised {
  private static final Logger LOG = LoggerFactory.getLogger(EntityStream.class);

  private final SparkSession spark;
  private final SilverEntity entity;
  private final String catalog;
  private final String bronze;
  private final String silver;
  private final String quarantine;
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
   * @param catalog the catalog of bronze, silver and quarantine
   * @param quarantine the quarantine table's SQL name
   * @param configuredCheckpoint the checkpoint of a table that names none
   * @param once stop when caught up
   * @param name the query's name (unique among the session's active queries)
   */
  EntityStream(SparkSession spark, SilverEntity entity, SchemaRegistryConfig registry, String catalog,
      String quarantine, String configuredCheckpoint, boolean once, String name) {
    this(spark, entity, registry, catalog, quarantine, configuredCheckpoint, once, name, java.util.Optional.empty());
  }

  private EntityStream(SparkSession spark, SilverEntity entity, SchemaRegistryConfig registry, String catalog,
      String quarantine, String configuredCheckpoint, boolean once, String name, java.util.Optional<String> topic) {
    this.topic = topic;
    this.registry = registry;
    this.name = name;
    this.spark = spark;
    this.entity = entity;
    this.catalog = catalog;
    this.bronze = catalog + "." + entity.source();
    this.silver = catalog + "." + entity.table();
    this.quarantine = quarantine;
    this.configuredCheckpoint = configuredCheckpoint;
    this.once = once;
  }

  /** The same stream reading only the records of {@code topic} (a database's table, rebuilt on its own). */
  EntityStream onlyTopic(String topic) {
    return new EntityStream(spark, entity, registry, catalog, quarantine, configuredCheckpoint, once, name,
        java.util.Optional.of(topic));
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public StreamingQuery start() {
    // Not between a rebuild's or rollback's two commits (table, then quarantine rows).
    Table silverTable = SwitchMark.awaitCleared(load(silver), name(), silver, java.time.Duration.ofSeconds(2));
    String fingerprint = SilverCheckpoints.fingerprint(entity);
    String recorded = silverTable.properties().get(SilverCheckpoints.CONFIG);
    if (!started) {
      // This job's config is the entity's from now on: a later switch by a tool run with another config is noticed.
      if (!fingerprint.equals(recorded)) {
        silverTable.updateProperties().set(SilverCheckpoints.CONFIG, fingerprint).commit();
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
    CheckpointFiles files = new CheckpointFiles(checkpoint, spark.sparkContext().hadoopConfiguration());
    Table bronzeTable = load(bronze);
    InitialLoad.runIfNew(spark, files, bronzeTable, bronze, merge, name());
    if (once && InitialLoad.nothingAfter(files, bronzeTable)) {
      // Iceberg cannot run a --once stream whose start is bronze's end (it fails computing where to stop).
      LOG.info("{}: caught up (bronze has no new snapshot since the initial load)", name());
      return null;
    }
    LOG.info("{}: {} -> {} ({}), checkpoint {}", name(), bronze, silver,
        once ? "until caught up" : "every " + entity.trigger().toMillis() + " ms", checkpoint);
    try {
      return spark.readStream().format("iceberg")
          // Compaction's replace snapshots add no records and are always passed over. Overwrite and delete
          // snapshots (a correction or an erasure in bronze) are passed over too instead of failing the stream;
          // silver does not follow them incrementally (a rebuild from bronze does), see the README.
          .option("streaming-skip-overwrite-snapshots", "true")
          .option("streaming-skip-delete-snapshots", "true")
          .option("streaming-max-rows-per-micro-batch", String.valueOf(entity.maxRowsPerTrigger()))
          .load(bronze)
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

  private Table load(String table) {
    try {
      return Spark3Util.loadIcebergTable(spark, table);
    } catch (Exception e) {
      throw new IllegalStateException("cannot load " + table + ": " + e.getMessage(), e);
    }
  }
}
