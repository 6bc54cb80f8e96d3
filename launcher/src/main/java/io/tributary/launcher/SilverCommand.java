package io.tributary.launcher;

import io.tributary.common.cli.Arguments;
import io.tributary.common.config.TributaryConfig;
import io.tributary.silver.SilverMergeJob;
import java.util.List;
import java.util.Set;

/** {@code silver --config FILE [--once]}: merges each entity's changes from bronze into its silver table. */
final class SilverCommand implements Command {
  @Override
  public String name() {
    return "silver";
  }

  @Override
  public String usage() {
    return "--config FILE [--once]   merge CDC changes from bronze into current-state silver tables";
  }

  @Override
  public int run(List<String> argList) {
    Arguments args = Arguments.parse(name(), argList, Set.of("config"), Set.of("once"));
    TributaryConfig config = ConfigOption.load(args);
    SilverMergeJob.checkConfig(config);
    new SilverMergeJob(Sessions.start(config, name()), config).run(args.flag("once"));
    return Tributary.OK;
  }
}
