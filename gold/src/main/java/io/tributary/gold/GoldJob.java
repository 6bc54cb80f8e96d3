package io.tributary.gold;

import io.tributary.common.cli.JobResult;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code tributary gold}: reads the models of {@code tributary.gold.models}, selects some (or all), plans them for
 * an interval and runs the plan, or only prints it.
 *
 * <pre>
 * GoldJob.of(spark, config, Interval.day(date)).select("daily_revenue").withDownstream().execute(System.out);
 * </pre>
 *
 * Each step returns a new job; {@link #execute} runs it.
 */
public final class GoldJob {
  private static final Logger LOG = LoggerFactory.getLogger(GoldJob.class);

  private final SparkSession spark;
  private final TributaryConfig config;
  private final Interval interval;
  private final Optional<String> select;
  private final boolean downstream;
  private final boolean fullRefresh;
  private final boolean dryRun;

  private GoldJob(SparkSession spark, TributaryConfig config, Interval interval, Optional<String> select,
      boolean downstream, boolean fullRefresh, boolean dryRun) {
    this.spark = spark;
    this.config = config;
    this.interval = interval;
    this.select = select;
    this.downstream = downstream;
    this.fullRefresh = fullRefresh;
    this.dryRun = dryRun;
  }

  /** Every model, for the days of {@code interval}. */
  public static GoldJob of(SparkSession spark, TributaryConfig config, Interval interval) {
    return new GoldJob(spark, config, interval, Optional.empty(), false, false, false);
  }

  /** Only this model (and with {@link #withDownstream()} the models that depend on it). */
  public GoldJob select(String model) {
    return new GoldJob(spark, config, interval, Optional.of(model), downstream, fullRefresh, dryRun);
  }

  /** With {@link #select}: every model that depends on the selected one, directly or not, too. */
  public GoldJob withDownstream() {
    return new GoldJob(spark, config, interval, select, true, fullRefresh, dryRun);
  }

  /**
   * Every selected model replaces its whole table with its result for the interval, in one commit after its tests
   * passed (a rebuild: readers see the old table or the new one, and the old one stays readable by time travel).
   */
  public GoldJob fullRefresh() {
    return new GoldJob(spark, config, interval, select, downstream, true, dryRun);
  }

  /** Prints the plan with the SQL that would run, and writes nothing. */
  public GoldJob dryRun() {
    return new GoldJob(spark, config, interval, select, downstream, fullRefresh, true);
  }

  /**
   * Reads the model files and resolves {@code select} before Spark starts, so that a bad model or an unknown model
   * fails at once (and in {@code tributary validate}), as bronze and silver check their config. Local folders only;
   * models on other file systems are read when the job runs, with the session's Hadoop settings.
   *
   * @throws InvalidModelException naming what is wrong
   */
  public static void checkModels(TributaryConfig config, Optional<String> select) {
    String models = config.gold().models();
    if (models.contains("://") && !models.startsWith("file:")) {
      return;
    }
    ModelGraph graph = ModelGraph.load(models, new org.apache.hadoop.conf.Configuration());
    select.ifPresent(graph::select);
  }

  /** What a gold run did: the models it built for its interval (none in a dry run), and how long it took. */
  public record Result(Interval interval, List<ModelRun> runs, int planned, boolean dryRun, Duration took)
      implements JobResult {
    @Override
    public String describe() {
      if (dryRun) {
        return String.format("dry run of %d model%s for %s; nothing was written", planned, planned == 1 ? "" : "s",
            interval);
      }
      return String.format("%d model%s built for %s in %.1f s", runs.size(), runs.size() == 1 ? "" : "s", interval,
          took.toMillis() / 1000.0);
    }
  }

  /**
   * @param out where the plan and the progress go
   * @return the models built (none in a dry run)
   * @throws InvalidModelException before anything runs: bad model files, unknown models or tables, SQL that does
   *     not analyse
   * @throws ModelFailedException when a model's checks fail (that model and the ones after it are not committed)
   */
  public Result execute(PrintStream out) {
    if (downstream && select.isEmpty()) {
      throw new IllegalStateException("withDownstream() needs select(model)");
    }
    long started = System.nanoTime();
    LakehouseSession.registerCatalog(spark, config.catalog());
    // The session's Hadoop settings reach the models folder too (s3a credentials, HDFS).
    ModelGraph graph = ModelGraph.load(config.gold().models(), spark.sparkContext().hadoopConfiguration());
    List<GoldModel> selected = select.map(name -> downstream ? graph.selectWithDownstream(name)
        : graph.select(name)).orElseGet(graph::inOrder);
    GoldRunner runner = new GoldRunner(spark, config);
    GoldPlan plan = fullRefresh ? runner.planFullRefresh(selected, interval) : runner.plan(selected, interval);
    LOG.info("gold plan for {}: {} models read, inputs pinned, SQL analysed in {} ms", interval, selected.size(),
        (System.nanoTime() - started) / 1_000_000);
    if (dryRun) {
      out.print(plan.describe());
      return new Result(interval, List.of(), selected.size(), true, Duration.ofNanos(System.nanoTime() - started));
    }
    out.printf("Gold: %d model%s for %s%n", selected.size(), selected.size() == 1 ? "" : "s", interval);
    List<ModelRun> runs = runner.run(plan, out::println);
    return new Result(interval, runs, selected.size(), false, Duration.ofNanos(System.nanoTime() - started));
  }
}
