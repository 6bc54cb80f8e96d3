package io.tributary.launcher;

import io.tributary.common.config.TributaryConfig;
import io.tributary.silver.SilverMergeJob;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code silver --config FILE [--once]}: merges each entity's changes from bronze into its silver table. */
@Command(name = "silver", description = "Merges each entity's and database's CDC changes from bronze into silver"
    + " tables: current state (or history), out-of-order safe, effectively once. Runs until stopped, or with --once"
    + " until caught up.")
final class SilverCommand extends JobCommand {
  @Mixin
  private ConfigOption config;

  @Option(names = "--once", description = "Merge what bronze holds now, then stop (for a scheduler).")
  private boolean once;

  @Override
  Job check() {
    TributaryConfig loaded = config.load();
    SilverMergeJob.checkConfig(loaded);
    return new Job("silver", loaded, spark -> {
      SilverMergeJob job = new SilverMergeJob(spark, loaded);
      return once ? job.runUntilCaughtUp() : job.runContinuously();
    });
  }
}
