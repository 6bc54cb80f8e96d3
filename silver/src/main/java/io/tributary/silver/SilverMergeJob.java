package io.tributary.silver;

import io.tributary.common.config.InvalidConfigException;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.CommitConflicts;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.StreamProgressLog;
import io.tributary.common.lakehouse.StreamSupervisor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds each configured entity's silver table from its bronze table: an Iceberg streaming read of bronze, and a
 * {@link CdcMerge} per micro-batch. Run with {@code tributary silver --config FILE [--once]}.
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
    if (config.silver().entities().isEmpty()) {
      throw new InvalidConfigException(List.of("tributary.silver.entities: no entities are configured"));
    }
  }

  /**
   * Runs until every entity has caught up ({@code once}) or until the job is stopped. A stream that loses an Iceberg
   * commit to a concurrent writer is restarted from its checkpoint (with a growing pause, at most
   * {@value #MAX_RESTARTS} times in a row); any other failure stops all streams and is rethrown.
   */
  public void run(boolean once) {
    LakehouseSession.registerCatalog(spark, config.catalog());
    StreamProgressLog.attachTo(spark);
    String catalog = config.catalog().name();
    String quarantine = catalog + "." + config.silver().quarantine();
    SilverTables.createQuarantineTable(spark, catalog, config.silver().quarantine());
    List<StreamSupervisor.Supervised> streams = new ArrayList<>();
    for (SilverEntity entity : config.silver().entityList()) {
      prepare(entity, catalog);
      streams.add(new StreamSupervisor.Supervised() {
        @Override
        public String name() {
          return "silver-" + entity.name();
        }

        @Override
        public StreamingQuery start() {
          return SilverMergeJob.this.start(entity, catalog, quarantine, once);
        }
      });
    }
    new StreamSupervisor(spark, RESTARTS).run(streams, once);
  }

  private static final int MAX_RESTARTS = 10;

  private static final StreamSupervisor.RestartPolicy RESTARTS = new StreamSupervisor.RestartPolicy(
      CommitConflicts::reason, MAX_RESTARTS, Duration.ofSeconds(2));

  private void prepare(SilverEntity entity, String catalog) {
    String bronze = catalog + "." + entity.source();
    if (!spark.catalog().tableExists(bronze)) {
      throw new IllegalStateException("tributary.silver.entities." + entity.name() + ".source: bronze table " + bronze
          + " does not exist yet; run bronze first");
    }
    SilverTables.createEntityTable(spark, catalog, entity);
  }

  private StreamingQuery start(SilverEntity entity, String catalog, String quarantine, boolean once) {
    String bronze = catalog + "." + entity.source();
    String silver = catalog + "." + entity.table();
    CdcMerge merge = new CdcMerge(entity, silver, quarantine);
    LOG.info("silver-{}: {} -> {} ({})", entity.name(), bronze, silver,
        once ? "until caught up" : "every " + entity.trigger().toMillis() + " ms");
    String checkpoint = config.checkpointFor("silver", TableFormat.ICEBERG, entity.table());
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
          .queryName("silver-" + entity.name())
          .option("checkpointLocation", checkpoint)
          .trigger(once ? Trigger.AvailableNow() : Trigger.ProcessingTime(entity.trigger().toMillis()))
          .foreachBatch((VoidFunction2<Dataset<Row>, Long>) merge::apply)
          .start();
    } catch (TimeoutException e) {
      throw new IllegalStateException("silver-" + entity.name() + " did not start in time", e);
    }
  }
}
