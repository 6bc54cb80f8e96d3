package io.tributary.bronze;

import io.tributary.common.config.BronzeSource;
import io.tributary.common.config.InvalidConfigException;
import io.tributary.common.config.OnDataLoss;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.StreamProgressLog;
import io.tributary.common.lakehouse.Tables;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lands every configured Kafka source in its bronze table, one streaming query per source, each with its own
 * checkpoint ({@code <checkpoint-location>/bronze/<table>}).
 *
 * <p>Run with {@code tributary bronze --config FILE [--once]}: continuous mode triggers a micro-batch every
 * {@code trigger}; {@code --once} loads what Kafka has now, then stops (backfills, tests, scheduled runs).
 */
public final class BronzeIngestJob {
  private static final Logger LOG = LoggerFactory.getLogger(BronzeIngestJob.class);

  private final SparkSession spark;
  private final TributaryConfig config;
  private final BronzeTable table;

  public BronzeIngestJob(SparkSession spark, TributaryConfig config) {
    this.spark = spark;
    this.config = config;
    this.table = new BronzeTable(new Tables(config.catalog()), config.bronze().format());
    checkConfig(config);
  }

  /** What bronze needs beyond a valid config; called before a session is started, so it fails fast. */
  public static void checkConfig(TributaryConfig config) {
    if (config.bronze().sources().isEmpty()) {
      throw new InvalidConfigException(List.of("tributary.bronze.sources: no sources are configured"));
    }
  }

  /**
   * Runs until every stream has caught up ({@code once}) or until the job is stopped. A stream that fails for a
   * retryable reason is restarted from its checkpoint (at most {@value #MAX_RESTARTS} times in a row); any other
   * failure stops all streams and is rethrown.
   */
  public void run(boolean once) {
    List<BronzeSource> sources = config.bronze().sourceList();
    List<StreamingQuery> queries = start(once);
    int[] restarts = new int[queries.size()];
    boolean[] done = new boolean[queries.size()];
    try {
      while (true) {
        awaitAnyTermination();
        boolean allDone = true;
        for (int i = 0; i < queries.size(); i++) {
          StreamingQuery query = queries.get(i);
          if (query.isActive()) {
            if (query.lastProgress() != null) {
              // It has completed a batch since its last restart: the limit counts restarts in a row.
              restarts[i] = 0;
            }
            allDone = false;
            continue;
          }
          if (done[i]) {
            continue;
          }
          if (query.exception().isEmpty()) {
            if (!once) {
              LOG.info("{} was stopped; stopping the other bronze streams", query.name());
              return;
            }
            done[i] = true;
            continue;
          }
          StreamingQueryException failure = query.exception().get();
          if (!RetryableFailure.isRetryable(failure) || restarts[i] >= MAX_RESTARTS) {
            throw explain(sources.get(i), failure);
          }
          restarts[i]++;
          LOG.warn("{} failed ({}); restarting it from its checkpoint ({} of {})", query.name(),
              RetryableFailure.describe(failure), restarts[i], MAX_RESTARTS);
          queries.set(i, startStream(sources.get(i), once));
          allDone = false;
        }
        if (allDone) {
          return;
        }
      }
    } finally {
      queries.forEach(BronzeIngestJob::stopQuietly);
    }
  }

  private static final int MAX_RESTARTS = 3;

  private void awaitAnyTermination() {
    try {
      // Polling with a timeout, then resetting: a query that ends between two polls is still seen on the next one.
      spark.streams().awaitAnyTermination(1000);
    } catch (StreamingQueryException failed) {
      // Inspected per query by the caller.
    }
    spark.streams().resetTerminated();
  }

  /** Creates missing tables, checks for offsets lost in Kafka, then starts one query per source. */
  private List<StreamingQuery> start(boolean once) {
    LakehouseSession.registerCatalog(spark, config.catalog());
    StreamProgressLog.attachTo(spark);
    List<StreamingQuery> queries = new ArrayList<>();
    try {
      for (BronzeSource source : config.bronze().sourceList()) {
        table.createIfAbsent(spark, source);
        queries.add(startStream(source, once));
      }
    } catch (RuntimeException e) {
      queries.forEach(BronzeIngestJob::stopQuietly);
      throw e;
    }
    return queries;
  }

  private StreamingQuery startStream(BronzeSource source, boolean once) {
    checkOffsets(source);
    BronzeStream stream = new BronzeStream(source, config.kafka(), table, checkpoint(source));
    LOG.info("{}: {} -> {} ({})", stream.queryName(), source.subscription(), table.sqlName(source),
        once ? "until caught up" : "every " + source.trigger().toMillis() + " ms");
    try {
      return stream.start(spark, once);
    } catch (TimeoutException e) {
      throw new IllegalStateException(stream.queryName() + " did not start in time", e);
    }
  }

  /**
   * The streaming read of one source exactly as bronze runs it, without the table write. Benchmarks write it to
   * Spark's {@code noop} sink to measure the Kafka-source ceiling on the same path.
   */
  public Dataset<Row> sourceRecords(String sourceName) {
    BronzeSource source = config.bronze().sources().get(sourceName);
    if (source == null) {
      throw new IllegalArgumentException("No bronze source named '" + sourceName + "'");
    }
    return new BronzeStream(source, config.kafka(), table, checkpoint(source)).records(spark);
  }

  String checkpoint(BronzeSource source) {
    return config.checkpointFor("bronze", config.bronze().format(), source.table());
  }

  private void checkOffsets(BronzeSource source) {
    LostOffsets lost;
    try {
      lost = lossCheck().check(source.name(), source.table().toString(), checkpoint(source));
    } catch (RuntimeException e) {
      if (source.onDataLoss() == OnDataLoss.SKIP) {
        // The user accepts gaps; an unanswered check must not keep the stream from starting.
        LOG.warn("{}: could not compare the checkpoint with Kafka's earliest offsets ({}); starting anyway",
            source.name(), e.getMessage());
        return;
      }
      throw new IllegalStateException("bronze-" + source.name() + ": cannot check the checkpoint against Kafka's"
          + " earliest offsets (" + e.getMessage() + "). Is Kafka reachable at "
          + config.kafka().bootstrapServers() + "?", e);
    }
    if (lost.isEmpty()) {
      return;
    }
    if (source.onDataLoss() == OnDataLoss.FAIL) {
      throw new BronzeDataLossException(lost.failureMessage(false), null);
    }
    LOG.warn("{}\nSkipping them, because tributary.bronze.sources.{}.on-data-loss = skip.", lost.describe(),
        source.name());
  }

  /** A stream that failed because Kafka deleted records under it gets the same precise message as at start. */
  private RuntimeException explain(BronzeSource source, StreamingQueryException failure) {
    if (source.onDataLoss() == OnDataLoss.FAIL) {
      try {
        LostOffsets lost = lossCheck().check(source.name(), source.table().toString(), checkpoint(source));
        if (!lost.isEmpty()) {
          return new BronzeDataLossException(lost.failureMessage(true), failure);
        }
      } catch (RuntimeException checkFailed) {
        failure.addSuppressed(checkFailed);
      }
    }
    return new IllegalStateException("bronze-" + source.name() + " failed: " + failure.getMessage(), failure);
  }

  private OffsetLossCheck lossCheck() {
    return new OffsetLossCheck(config.kafka().clientProperties(), spark.sessionState().newHadoopConf());
  }

  private static void stopQuietly(StreamingQuery query) {
    try {
      query.stop();
    } catch (Exception e) {
      LOG.warn("Stopping {} failed: {}", query.name(), e.getMessage());
    }
  }
}
