package io.tributary.bronze;

import io.tributary.common.config.BronzeSource;
import io.tributary.common.config.InvalidConfigException;
import io.tributary.common.config.OnDataLoss;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.StorageFull;
import io.tributary.common.lakehouse.StreamProgressLog;
import io.tributary.common.lakehouse.StreamRuns;
import io.tributary.common.lakehouse.StreamSupervisor;
import io.tributary.common.lakehouse.Tables;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
  private boolean acceptDataLoss;

  public BronzeIngestJob(SparkSession spark, TributaryConfig config) {
    this.spark = spark;
    this.config = config;
    this.table = new BronzeTable(new Tables(config.catalog()), config.bronze().format());
    checkConfig(config);
  }

  /**
   * Every source skips records Kafka deleted before bronze loaded them, as with {@code on-data-loss = skip}
   * ({@code bronze --accept-data-loss}); the skipped ranges are recorded in {@code <namespace>._lost_offsets}.
   */
  public BronzeIngestJob acceptingDataLoss() {
    this.acceptDataLoss = true;
    return this;
  }

  private boolean skipsLoss(BronzeSource source) {
    return acceptDataLoss || source.onDataLoss() == OnDataLoss.SKIP;
  }

  /** What bronze needs beyond a valid config; called before a session is started, so it fails fast. */
  public static void checkConfig(TributaryConfig config) {
    if (config.bronze().sources().isEmpty()) {
      throw new InvalidConfigException(List.of("tributary.bronze.sources: no sources are configured"));
    }
  }

  /** The topics the sources name (patterns match only what the client may see, so they have none to check). */
  static List<String> namedTopics(TributaryConfig config) {
    return config.bronze().sourceList().stream().flatMap(source -> source.topics().stream()).distinct().toList();
  }

  /**
   * Runs until every stream has caught up ({@code once}) or until the job is stopped. A stream that fails for a
   * retryable reason is restarted from its checkpoint (at most {@value #MAX_RESTARTS} times in a row); any other
   * failure stops all streams and is rethrown.
   */
  /** Runs until every stream has caught up with what its source holds now, then returns ({@code --once}). */
  public StreamRuns.Outcome runUntilCaughtUp() {
    return run(true);
  }

  /** Runs until the job is stopped or a stream fails for good. */
  public StreamRuns.Outcome runContinuously() {
    return run(false);
  }

  private StreamRuns.Outcome run(boolean once) {
    KafkaReachability.check(config.kafka(), namedTopics(config));
    LakehouseSession.registerCatalog(spark, config.catalog());
    StreamProgressLog.attachTo(spark);
    List<StreamSupervisor.Supervised> streams = new ArrayList<>();
    for (BronzeSource source : config.bronze().sourceList()) {
      table.createIfAbsent(spark, source);
      streams.add(new StreamSupervisor.Supervised() {
        @Override
        public String name() {
          return "bronze-" + source.name();
        }

        @Override
        public StreamingQuery start() {
          return startStream(source, once);
        }

        @Override
        public RuntimeException explain(StreamingQueryException failure) {
          return BronzeIngestJob.this.explain(source, failure);
        }
      });
    }
    StreamSupervisor supervisor = new StreamSupervisor(spark, RESTARTS);
    return once ? supervisor.runUntilCaughtUp(streams) : supervisor.runContinuously(streams);
  }

  /** Restarts in a row, 5 s apart and 5 s longer each time: about 3 minutes of a broker that does not answer. */
  private static final int MAX_RESTARTS = 8;
  private static final Duration BACKOFF = Duration.ofSeconds(5);

  private static final StreamSupervisor.RestartPolicy RESTARTS = new StreamSupervisor.RestartPolicy(
      failure -> RetryableFailure.isRetryable(failure) ? Optional.of(RetryableFailure.describe(failure))
          : Optional.empty(),
      MAX_RESTARTS, BACKOFF);

  private StreamingQuery startStream(BronzeSource source, boolean once) {
    List<String> setAside = new BronzeCheckpoint(checkpoint(source), spark.sessionState().newHadoopConf())
        .setAsideDamagedLastBatch();
    if (!setAside.isEmpty()) {
      LOG.warn("bronze-{}: the checkpoint's last batch files could not be read ({}); moved them aside (*.damaged-*)"
          + " so that Spark plans the batch again: the table records what it holds, so nothing is loaded twice",
          source.name(), String.join(", ", setAside));
    }
    checkOffsets(source);
    BronzeStream stream = new BronzeStream(source, config.kafka(), table, checkpoint(source), !skipsLoss(source),
        (session, lost) -> onGapLost(source, lost));
    LOG.info("{}: {} -> {} ({})", stream.queryName(), source.subscription(), table.sqlName(source),
        once ? "until caught up" : "every " + source.trigger().toMillis() + " ms");
    try {
      return stream.start(spark, once);
    } catch (TimeoutException e) {
      throw new IllegalStateException(stream.queryName() + " did not start in time", e);
    }
  }

  /** Creates the bronze tables that do not exist yet (also done by {@link #run}). */
  public void createTables() {
    LakehouseSession.registerCatalog(spark, config.catalog());
    for (BronzeSource source : config.bronze().sourceList()) {
      table.createIfAbsent(spark, source);
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
    return new BronzeStream(source, config.kafka(), table, checkpoint(source), !skipsLoss(source),
        (session, lost) -> onGapLost(source, lost)).records(spark);
  }

  String checkpoint(BronzeSource source) {
    return config.checkpointFor("bronze", config.bronze().format(), source.table());
  }

  /**
   * Where the stream's next record is: the table's end where the table records one (it is what the batches load
   * from), else the checkpoint's.
   */
  private KafkaOffsets resumeOffsets(BronzeSource source) {
    return new BronzeCheckpoint(checkpoint(source), spark.sessionState().newHadoopConf()).resumeOffsets()
        .overriddenBy(BronzeCommits.of(spark, table, source).loaded());
  }

  /** Records of a gap that Kafka has deleted: the same failure or accepted loss as at the start of a stream. */
  private void onGapLost(BronzeSource source, LostOffsets lost) throws Exception {
    if (!skipsLoss(source)) {
      throw new BronzeDataLossException(lost.failureMessage(true), null);
    }
    LOG.warn("{}\nSkipping them; recorded in {}.", lost.describe(),
        LostOffsetsLog.tableFor(config.catalog().name(), source.table()));
    LostOffsetsLog.record(spark, config.catalog().name(), source.table(), lost, acceptedBy(source));
  }

  private String acceptedBy(BronzeSource source) {
    return acceptDataLoss ? "bronze --accept-data-loss"
        : "tributary.bronze.sources." + source.name() + ".on-data-loss = skip";
  }

  private void checkOffsets(BronzeSource source) {
    LostOffsets lost;
    try {
      lost = lossCheck().check(source.name(), source.table().toString(), resumeOffsets(source));
    } catch (RuntimeException e) {
      if (skipsLoss(source)) {
        // The user accepts gaps; an unanswered check must not keep the stream from starting.
        LOG.warn("{}: could not compare the checkpoint with Kafka's earliest offsets ({}); starting anyway",
            source.name(), e.getMessage());
        return;
      }
      throw new io.tributary.common.lakehouse.DependencyUnavailableException("bronze-" + source.name() + ": cannot"
          + " check where the stream resumes against Kafka's earliest offsets (" + e.getMessage() + "). Is Kafka"
          + " reachable at " + config.kafka().bootstrapServers() + "?", e);
    }
    if (lost.isEmpty()) {
      return;
    }
    if (!skipsLoss(source)) {
      throw new BronzeDataLossException(lost.failureMessage(false), null);
    }
    String acceptedBy = acceptedBy(source);
    LOG.warn("{}\nSkipping them, because of {}; recorded in {}.", lost.describe(), acceptedBy,
        LostOffsetsLog.tableFor(config.catalog().name(), source.table()));
    try {
      LostOffsetsLog.record(spark, config.catalog().name(), source.table(), lost, acceptedBy);
    } catch (Exception e) {
      throw new IllegalStateException("bronze-" + source.name() + ": cannot record the skipped offsets in "
          + LostOffsetsLog.tableFor(config.catalog().name(), source.table()) + ": " + e.getMessage(), e);
    }
  }

  /** A stream that failed because Kafka deleted records under it gets the same precise message as at start. */
  private RuntimeException explain(BronzeSource source, StreamingQueryException failure) {
    Optional<io.tributary.common.lakehouse.DependencyUnavailableException> full =
        StorageFull.explain("bronze-" + source.name(), failure, config);
    if (full.isPresent()) {
      return full.get();
    }
    if (RetryableFailure.isKafkaUnavailable(failure)) {
      return new io.tributary.common.lakehouse.DependencyUnavailableException("bronze-" + source.name() + ": Kafka at "
          + config.kafka().bootstrapServers() + " did not answer through " + MAX_RESTARTS + " restarts (about 3"
          + " minutes); the batch was not committed and nothing was skipped. Run bronze again once the broker answers.",
          failure);
    }
    if (!skipsLoss(source)) {
      try {
        LostOffsets lost = lossCheck().check(source.name(), source.table().toString(), resumeOffsets(source));
        if (!lost.isEmpty()) {
          return new BronzeDataLossException(lost.failureMessage(true), failure);
        }
      } catch (RuntimeException checkFailed) {
        failure.addSuppressed(checkFailed);
      }
    }
    return new IllegalStateException("bronze-" + source.name() + " failed: " + failure.getMessage(), failure);
  }

  OffsetLossCheck lossCheck() {
    return new OffsetLossCheck(config.kafka().clientProperties());
  }
}
