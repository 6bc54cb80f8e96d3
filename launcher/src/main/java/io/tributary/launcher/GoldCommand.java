package io.tributary.launcher;

import io.tributary.common.cli.Arguments;
import io.tributary.common.cli.UsageException;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.StorageFull;
import io.tributary.gold.GoldJob;
import io.tributary.gold.Interval;
import java.util.List;
import java.util.Set;

/**
 * {@code gold --config FILE (--date D | --from D --to D) [--select MODEL [--downstream]] [--dry-run]}: builds the
 * gold models for one day, or for the days {@code --from} to {@code --to} (both included) in one run.
 */
final class GoldCommand implements Command {
  @Override
  public String name() {
    return "gold";
  }

  @Override
  public String usage() {
    return "--config FILE (--date YYYY-MM-DD | --from YYYY-MM-DD --to YYYY-MM-DD) [--select MODEL [--downstream]]"
        + " [--full-refresh] [--dry-run]\n           build the gold SQL models for a day or a range of days (both"
        + " included); --full-refresh replaces each table with the result for the range (a rebuild)";
  }

  @Override
  public int run(List<String> argList) {
    Arguments args = Arguments.parse(name(), argList, Set.of("config", "date", "from", "to", "select"),
        Set.of("downstream", "dry-run", "full-refresh"));
    Interval interval = interval(args);
    if (args.flag("downstream") && args.value("select").isEmpty()) {
      throw new UsageException("'gold': --downstream needs --select MODEL");
    }
    TributaryConfig config = ConfigOption.load(args);
    checkModels(config, args.value("select"), args.flag("downstream"));
    try {
      new GoldJob(Sessions.start(config, name()), config).run(args.value("select"), args.flag("downstream"),
          interval, args.flag("full-refresh"), args.flag("dry-run"), System.out);
    } catch (RuntimeException failure) {
      throw StorageFull.explain("gold", failure, config, StorageFull.GOLD_RUN)
          .<RuntimeException>map(full -> full).orElse(failure);
    }
    return Tributary.OK;
  }

  /**
   * Reads the model files and resolves the selection before Spark starts, so that a bad model or an unknown
   * {@code --select} fails at once (and in validation mode). Local paths only; other file systems are read when the
   * job runs, with the session's Hadoop settings.
   */
  static void checkModels(TributaryConfig config, java.util.Optional<String> select, boolean downstream) {
    String models = config.gold().models();
    if (models.contains("://") && !models.startsWith("file:")) {
      return;
    }
    io.tributary.gold.ModelGraph graph = io.tributary.gold.ModelGraph.load(models,
        new org.apache.hadoop.conf.Configuration());
    select.ifPresent(name -> graph.select(name, downstream));
  }

  static Interval interval(Arguments args) {
    boolean range = args.value("from").isPresent() || args.value("to").isPresent();
    try {
      if (args.value("date").isPresent()) {
        if (range) {
          throw new UsageException("'gold': give either --date or --from and --to, not both");
        }
        return Interval.day(Interval.date("--date", args.value("date").get()));
      }
      if (!range) {
        throw new UsageException("'gold': give the data interval: --date YYYY-MM-DD, or --from and --to");
      }
      return Interval.days(Interval.date("--from", args.required("from")), Interval.date("--to", args.required("to")));
    } catch (IllegalArgumentException e) {
      throw new UsageException("'gold': " + e.getMessage());
    }
  }
}
