package io.tributary.launcher;

import io.tributary.common.cli.UsageException;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.StorageFull;
import io.tributary.gold.GoldJob;
import io.tributary.gold.Interval;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code gold --config FILE (--date D | --from D --to D) [--select MODEL [--downstream]] [--dry-run]}: builds the
 * gold models for one day, or for the days {@code --from} to {@code --to} (both included) in one run.
 */
@Command(name = "gold", description = "Builds the gold SQL models for one day, or for the days --from to --to (both"
    + " included), in dependency order; each model's tests run before its commit.")
final class GoldCommand extends JobCommand {
  @Mixin
  private ConfigOption config;

  @Mixin
  private Days days;

  @Option(names = "--select", paramLabel = "MODEL", description = "Only this model (and with --downstream the models"
      + " that read it).")
  private String select;

  @Option(names = "--downstream", description = "With --select: the models that depend on it too.")
  private boolean downstream;

  @Option(names = "--full-refresh", description = "Replace each table with the result for the days given (a"
      + " rebuild) instead of replacing only those days.")
  private boolean fullRefresh;

  @Option(names = "--dry-run", description = "Print each model's SQL for the days, build nothing.")
  private boolean dryRun;

  /** The data interval: {@code --date D}, or {@code --from D --to D}. */
  static final class Days {
    @Option(names = "--date", paramLabel = "YYYY-MM-DD", description = "The day to build.")
    String date;

    @Option(names = "--from", paramLabel = "YYYY-MM-DD", description = "The first day of a range.")
    String from;

    @Option(names = "--to", paramLabel = "YYYY-MM-DD", description = "The last day of a range (included).")
    String to;

    Interval interval(String command) {
      return interval(command, date, from, to);
    }

    /** The interval of a command's {@code --date} or {@code --from} and {@code --to} (any of them null). */
    static Interval interval(String command, String date, String from, String to) {
      boolean range = from != null || to != null;
      try {
        if (date != null) {
          if (range) {
            throw new UsageException("'" + command + "': give either --date or --from and --to, not both");
          }
          return Interval.day(Interval.date("--date", date));
        }
        if (!range) {
          throw new UsageException("'" + command + "': give the data interval: --date YYYY-MM-DD, or --from and --to");
        }
        if (from == null || to == null) {
          throw new UsageException("'" + command + "': option " + (from == null ? "--from" : "--to") + " is required");
        }
        return Interval.days(Interval.date("--from", from), Interval.date("--to", to));
      } catch (IllegalArgumentException e) {
        throw new UsageException("'" + command + "': " + e.getMessage());
      }
    }
  }

  @Override
  Job check() {
    Interval interval = days.interval("gold");
    if (downstream && select == null) {
      throw new UsageException("'gold': --downstream needs --select MODEL");
    }
    TributaryConfig loaded = config.load();
    GoldJob.checkModels(loaded, Optional.ofNullable(select));
    return new Job("gold", loaded, spark -> {
      GoldJob job = GoldJob.of(spark, loaded, interval);
      if (select != null) {
        job = downstream ? job.select(select).withDownstream() : job.select(select);
      }
      if (fullRefresh) {
        job = job.fullRefresh();
      }
      if (dryRun) {
        job = job.dryRun();
      }
      try {
        return job.execute(System.out);
      } catch (RuntimeException failure) {
        throw StorageFull.explain("gold", failure, loaded, StorageFull.GOLD_RUN)
            .<RuntimeException>map(full -> full).orElse(failure);
      }
    });
  }
}
