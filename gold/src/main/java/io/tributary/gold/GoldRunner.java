package io.tributary.gold;

import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LocalCheckpoints;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds gold models for one interval: plans (pins the inputs, analyses every SQL it can, fails before anything
 * runs when a table or column is unknown), then runs each model in order: query, checks, one commit. A failing
 * model stops the run; the models before it stay committed, it and the ones after it keep their previous snapshot.
 */
public final class GoldRunner {
  private static final Logger LOG = LoggerFactory.getLogger(GoldRunner.class);

  private final SparkSession spark;
  private final TributaryConfig config;
  private final GoldTables tables;
  private final GoldTableWriter writer;

  public GoldRunner(SparkSession spark, TributaryConfig config) {
    this.spark = spark;
    this.config = config;
    this.tables = new GoldTables(spark, config);
    this.writer = new GoldTableWriter(spark, tables);
  }

  /**
   * The plan for the selected models (in run order, e.g. from {@link ModelGraph#select}).
   *
   * @throws InvalidModelException naming every unknown table and every SQL that does not analyse
   */
  public GoldPlan plan(List<GoldModel> selected, Interval interval) {
    return plan(selected, interval, false);
  }

  /**
   * The plan of a full refresh: every model replaces its whole table with its result for the interval.
   *
   * @throws InvalidModelException naming every unknown table and every SQL that does not analyse
   */
  public GoldPlan planFullRefresh(List<GoldModel> selected, Interval interval) {
    return plan(selected, interval, true);
  }

  private GoldPlan plan(List<GoldModel> selected, Interval interval, boolean fullRefresh) {
    List<String> problems = new ArrayList<>();
    String catalog = config.catalog().name();
    InputTables inputs = InputTables.pin(tables, catalog, config.gold(), selected, problems);
    if (problems.isEmpty()) {
      for (GoldModel model : selected) {
        if (inputs.ready(model)) { // a model reading a model of this run is analysed when that one has run
          try {
            spark.sql(model.render(interval, inputs::sqlName)).schema();
          } catch (Exception e) {
            problems.add("model " + model.name() + ": its SQL does not analyse: " + firstLine(e.getMessage()));
          }
        }
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidModelException(problems);
    }
    return new GoldPlan(interval, List.copyOf(selected), inputs, tables, fullRefresh);
  }

  /** Runs the plan; {@code progress} gets a line as each model starts and another as it commits. */
  public List<ModelRun> run(GoldPlan plan, Consumer<String> progress) {
    String runId = UUID.randomUUID().toString();
    tables.ensureGoldNamespace();
    List<ModelRun> runs = new ArrayList<>();
    int index = 0;
    for (GoldModel model : plan.models()) {
      progress.accept(String.format("[%d/%d] %s", ++index, plan.models().size(), plan.headline(model)));
      ModelRun run = runModel(plan, model, runId);
      runs.add(run);
      progress.accept(String.format("      %,d rows, %d tests passed, committed %s %d in %.1f s", run.rows(),
          run.testsPassed().size(), config.gold().format() == io.tributary.common.config.TableFormat.DELTA
              ? "version" : "snapshot", run.snapshotId(), run.millis() / 1000.0));
    }
    return runs;
  }

  private ModelRun runModel(GoldPlan plan, GoldModel model, String runId) {
    long started = System.nanoTime();
    InputTables inputs = plan.inputs();
    String sql = model.render(plan.interval(), inputs::sqlName);
    // One evaluation of the query serves the checks, the count and the write.
    Dataset<Row> result = spark.sql(sql).localCheckpoint();
    String view = "gold_result_" + model.name();
    result.createOrReplaceTempView(view);
    try {
      long queried = System.nanoTime();
      ModelChecks.Outcome checks = ModelChecks.run(spark, model, view, plan.interval(), inputs::sqlName);
      long checked = System.nanoTime();
      Lineage lineage = new Lineage(model.name(), model.version(), plan.interval().toString(), inputs.lineage(model),
          runId);
      long snapshot = writer.write(model, result, view, plan.addressOf(model), plan.interval(), lineage,
          plan.fullRefresh());
      inputs.committed(model.name(), snapshot);
      long committed = System.nanoTime();
      LOG.info("gold {} for {}: {} rows; query {} ms, checks {} ms, commit {} ms", model.name(), plan.interval(),
          checks.rows(),
          (queried - started) / 1_000_000, (checked - queried) / 1_000_000, (committed - checked) / 1_000_000);
      return new ModelRun(model, plan.tableOf(model), checks.rows(), checks.passed(), snapshot,
          (committed - started) / 1_000_000);
    } finally {
      spark.catalog().dropTempView(view);
      LocalCheckpoints.release(result);
    }
  }

  private static String firstLine(String message) {
    return message == null ? "" : message.lines().findFirst().orElse("");
  }
}
