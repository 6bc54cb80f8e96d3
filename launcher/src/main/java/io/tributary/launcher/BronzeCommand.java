package io.tributary.launcher;

import io.tributary.bronze.BronzeIngestJob;
import io.tributary.common.config.TributaryConfig;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code bronze --config FILE [--once] [--accept-data-loss]}: lands the configured Kafka topics in bronze tables. */
@Command(name = "bronze", description = "Lands the configured Kafka topics in bronze tables, exactly once: one row"
    + " per record, raw and replayable. Runs until stopped, or with --once until caught up.")
final class BronzeCommand implements Callable<Integer> {
  @Mixin
  private ConfigOption config;

  @Option(names = "--once", description = "Load what the topics hold now, then stop (for a scheduler).")
  private boolean once;

  @Option(names = "--accept-data-loss", description = "Go on when Kafka deleted records (retention) before bronze"
      + " loaded them; the lost offset ranges are recorded. Without it such a run stops and says which.")
  private boolean acceptDataLoss;

  @Override
  public Integer call() {
    TributaryConfig loaded = config.load();
    BronzeIngestJob.checkConfig(loaded);
    SparkSession spark = Sessions.start(loaded, "bronze");
    BronzeIngestJob job = new BronzeIngestJob(spark, loaded);
    if (acceptDataLoss) {
      job.acceptingDataLoss();
    }
    job.run(once);
    return Tributary.OK;
  }
}
