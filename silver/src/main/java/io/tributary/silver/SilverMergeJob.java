package io.tributary.silver;

import io.tributary.common.config.InvalidConfigException;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.StreamProgressLog;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
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

  public void run(boolean once) {
    LakehouseSession.registerCatalog(spark, config.catalog());
    StreamProgressLog.attachTo(spark);
    String catalog = config.catalog().name();
    String quarantine = catalog + "." + config.silver().quarantine();
    SilverTables.createQuarantineTable(spark, catalog, config.silver().quarantine());
    List<StreamingQuery> queries = new ArrayList<>();
    try {
      for (SilverEntity entity : config.silver().entityList()) {
        queries.add(start(entity, catalog, quarantine, once));
      }
      if (once) {
        for (StreamingQuery query : queries) {
          query.awaitTermination();
        }
      } else {
        spark.streams().awaitAnyTermination();
        for (StreamingQuery query : queries) {
          if (query.exception().isDefined()) {
            throw query.exception().get();
          }
        }
      }
    } catch (StreamingQueryException e) {
      throw new IllegalStateException("Silver stream failed: " + e.getMessage(), e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("A silver stream did not start in time", e);
    } finally {
      for (StreamingQuery query : queries) {
        try {
          query.stop();
        } catch (Exception e) {
          LOG.warn("Stopping {} failed: {}", query.name(), e.getMessage());
        }
      }
    }
  }

  private StreamingQuery start(SilverEntity entity, String catalog, String quarantine, boolean once)
      throws TimeoutException {
    String bronze = catalog + "." + entity.source();
    if (!spark.catalog().tableExists(bronze)) {
      throw new IllegalStateException("tributary.silver.entities." + entity.name() + ".source: bronze table " + bronze
          + " does not exist yet; run bronze first");
    }
    SilverTables.createEntityTable(spark, catalog, entity);
    String silver = catalog + "." + entity.table();
    CdcMerge merge = new CdcMerge(entity, silver, quarantine);
    LOG.info("silver-{}: {} -> {} ({})", entity.name(), bronze, silver,
        once ? "until caught up" : "every " + entity.trigger().toMillis() + " ms");
    return spark.readStream().format("iceberg")
        // Compaction of bronze replaces files without adding records: nothing for silver to read there.
        .option("streaming-skip-overwrite-snapshots", "true")
        .option("streaming-skip-delete-snapshots", "true")
        .option("streaming-max-rows-per-micro-batch", String.valueOf(entity.maxRowsPerTrigger()))
        .load(bronze)
        .writeStream()
        .queryName("silver-" + entity.name())
        .option("checkpointLocation", config.checkpointFor("silver", TableFormat.ICEBERG, entity.table()))
        .trigger(once ? Trigger.AvailableNow() : Trigger.ProcessingTime(entity.trigger().toMillis()))
        .foreachBatch((VoidFunction2<Dataset<Row>, Long>) merge::apply)
        .start();
  }
}
