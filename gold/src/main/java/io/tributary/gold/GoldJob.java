package io.tributary.gold;

import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code tributary gold}: reads the models of {@code tributary.gold.models}, selects some (or all), plans them for
 * an interval and runs the plan, or only prints it.
 */
public final class GoldJob {
  private static final Logger LOG = LoggerFactory.getLogger(GoldJob.class);

  private final SparkSession spark;
  private final TributaryConfig config;

  public GoldJob(SparkSession spark, TributaryConfig config) {
    this.spark = spark;
    this.config = config;
  }

  /**
   * @param select one model to build, or every model when empty
   * @param downstream with {@code select}: also every model that depends on it
   * @param dryRun print the plan with the SQL that would run, and write nothing
   * @param out where the plan and the progress go
   * @return the models built (none in a dry run)
   * @throws InvalidModelException before anything runs: bad model files, unknown models or tables, SQL that does
   *     not analyse
   * @throws ModelFailedException when a model's checks fail (that model and the ones after it are not committed)
   */
  public List<ModelRun> run(Optional<String> select, boolean downstream, Interval interval, boolean dryRun,
      PrintStream out) {
    return run(select, downstream, interval, false, dryRun, out);
  }

  /**
   * As {@link #run(Optional, boolean, Interval, boolean, PrintStream)}; with {@code fullRefresh} every selected model
   * replaces its whole table with its result for the interval, in one commit after its tests passed (a rebuild:
   * readers see the old table or the new one, and the old one stays readable by time travel).
   */
  public List<ModelRun> run(Optional<String> select, boolean downstream, Interval interval, boolean fullRefresh,
      boolean dryRun, PrintStream out) {
    long started = System.nanoTime();
    LakehouseSession.registerCatalog(spark, config.catalog());
    // The session's Hadoop settings reach the models folder too (s3a credentials, HDFS).
    ModelGraph graph = ModelGraph.load(config.gold().models(), spark.sparkContext().hadoopConfiguration());
    List<GoldModel> selected = select.map(name -> graph.select(name, downstream)).orElseGet(graph::inOrder);
    GoldRunner runner = new GoldRunner(spark, config);
    GoldPlan plan = runner.plan(selected, interval, fullRefresh);
    LOG.info("gold plan for {}: {} models read, inputs pinned, SQL analysed in {} ms", interval, selected.size(),
        (System.nanoTime() - started) / 1_000_000);
    if (dryRun) {
      out.print(plan.describe());
      out.println("\nDry run: nothing was written.");
      return List.of();
    }
    out.printf("Gold: %d model%s for %s%n", selected.size(), selected.size() == 1 ? "" : "s", interval);
    List<ModelRun> runs = runner.run(plan, out::println);
    out.printf("Gold: %d model%s built for %s in %.1f s%n", runs.size(), runs.size() == 1 ? "" : "s", interval,
        (System.nanoTime() - started) / 1e9);
    return runs;
  }
}
