package io.tributary.launcher;

import io.tributary.common.cli.Arguments;
import io.tributary.common.config.TributaryConfig;
import io.tributary.maintenance.MaintenanceJob;
import java.util.List;
import java.util.Set;

/** {@code health --config FILE [--table NAMESPACE.TABLE]}: one line per table: snapshots, files, sizes. */
final class HealthCommand implements Command {
  @Override
  public String name() {
    return "health";
  }

  @Override
  public String usage() {
    return "--config FILE [--table NS.TABLE]   snapshots, data files, average size, small files, delete files";
  }

  @Override
  public int run(List<String> argList) {
    Arguments args = Arguments.parse(name(), argList, Set.of("config", "table"), Set.of());
    TributaryConfig config = ConfigOption.load(args);
    new MaintenanceJob(Sessions.start(config, name()), config).health(args.value("table"), System.out);
    return Tributary.OK;
  }
}
