package io.tributary.silver;

import io.tributary.common.lakehouse.TableAddress;
import io.tributary.common.config.SchemaRegistryConfig;
import io.tributary.common.config.SilverDatabase;
import io.tributary.common.lakehouse.CommitWindowPause;
import io.tributary.common.lakehouse.StreamSupervisor;
import java.util.concurrent.TimeoutException;
import org.apache.iceberg.Table;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one stream of a database block: a streaming read of the database's bronze table (Iceberg or Delta), a
 * {@link DatabaseFanOut} per micro-batch. Like an entity's stream, a stream that has never run starts with an
 * {@link InitialLoad} of everything bronze holds.
 */
final class DatabaseStream implements StreamSupervisor.Supervised {
  private static final Logger LOG = LoggerFactory.getLogger(DatabaseStream.class);

  private final SparkSession spark;
  private final SilverDatabase database;
  private final SchemaRegistryConfig registry;
  private final SilverLayout layout;
  private final BronzeFeed bronze;
  private final TableAddress quarantine;
  private final String checkpoint;
  private final boolean once;

  /**
   * @param quarantine the quarantine table
   * @param checkpoint the stream's checkpoint
   * @param once stop when caught up
   */
  DatabaseStream(SparkSession spark, SilverDatabase database, SchemaRegistryConfig registry, SilverLayout layout,
      TableAddress quarantine, String checkpoint, boolean once) {
    this.spark = spark;
    this.database = database;
    this.registry = registry;
    this.layout = layout;
    this.bronze = new BronzeFeed(spark, layout.bronze(database.source()));
    this.quarantine = quarantine;
    this.checkpoint = checkpoint;
    this.once = once;
  }

  @Override
  public String name() {
    return "silver-database-" + database.name();
  }

  @Override
  public StreamingQuery start() {
    DatabaseFanOut fanOut = new DatabaseFanOut(spark, database, registry, layout, quarantine, checkpoint, name());
    if (!bronze.startsFromItsSnapshot()) {
      CheckpointFiles files = new CheckpointFiles(checkpoint, spark.sparkContext().hadoopConfiguration());
      Table bronzeTable = bronze.iceberg();
      InitialLoad.runIfNew(spark, files, bronzeTable, bronze.name(), fanOut, name());
      if (once && InitialLoad.nothingAfter(files, bronzeTable)) {
        LOG.info("{}: caught up (bronze has no new snapshot since the initial load)", name());
        return null;
      }
    }
    LOG.info("{}: {} -> {} tables {} ({}), checkpoint {}", name(), bronze, layout.silverFormat(), database.template(),
        once ? "until caught up" : "every " + database.trigger().toMillis() + " ms", checkpoint);
    try {
      // As an entity's stream does (EntityStream): compaction, corrections and erasures in bronze are passed over.
      return bronze.stream(database.maxRowsPerTrigger(), database.maxFilesPerTrigger())
          .writeStream()
          .queryName(name())
          .option("checkpointLocation", checkpoint)
          .trigger(once ? Trigger.AvailableNow() : Trigger.ProcessingTime(database.trigger().toMillis()))
          .foreachBatch((VoidFunction2<Dataset<Row>, Long>) (batch, batchId) -> {
            fanOut.apply(batch, batchId);
            CommitWindowPause.hold(name(), batchId);
          })
          .start();
    } catch (TimeoutException e) {
      throw new IllegalStateException(name() + " did not start in time", e);
    }
  }
}
