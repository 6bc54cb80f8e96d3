package io.tributary.launcher;

import io.tributary.bronze.BronzeIngestJob;
import io.tributary.common.config.TributaryConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code bronze --config FILE [--once] [--accept-data-loss]}: lands the configured Kafka topics in bronze tables. */
@Command(name = "bronze", description = "Lands the configured Kafka topics in bronze tables, exactly once: one row"
    + " per record, raw and replayable. Runs until stopped, or with --once until caught up.")
final class BronzeCommand extends JobCommand {
  @Mixin
  private ConfigOption config;

  @Option(names = "--once", description = "Load what the topics hold now, then stop (for a scheduler).")
  private boolean once;

  @Option(names = "--accept-data-loss", description = "Go on when Kafka deleted records (retention) before bronze"
      + " loaded them; the lost offset ranges are recorded. Without it such a run stops and says which.")
  private boolean acceptDataLoss;

  @Override
  Job check() {
    TributaryConfig loaded = config.load();
    BronzeIngestJob.checkConfig(loaded);
    return new Job("bronze", loaded, spark -> {
      BronzeIngestJob job = new BronzeIngestJob(spark, loaded);
      if (acceptDataLoss) {
        job.acceptingDataLoss();
      }
      return once ? job.runUntilCaughtUp() : job.runContinuously();
    });
  }
}
