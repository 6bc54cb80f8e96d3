package io.tributary.launcher;

import io.tributary.common.cli.Arguments;
import io.tributary.common.cli.UsageException;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.StorageFull;
import io.tributary.maintenance.MaintenanceJob;
import io.tributary.maintenance.Operation;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code maintain --config FILE [--table NAMESPACE.TABLE] [--operation OP]}: runs what each table's maintenance
 * policy says is due (or one operation), printing each table's health before and after.
 */
final class MaintainCommand implements Command {
  @Override
  public String name() {
    return "maintain";
  }

  @Override
  public String usage() {
    return "--config FILE [--table NS.TABLE] [--operation OP]   compact, expire snapshots, remove orphans"
        + " (safe next to the streams)";
  }

  @Override
  public int run(List<String> argList) {
    Arguments args = Arguments.parse(name(), argList, Set.of("config", "table", "operation"), Set.of());
    Optional<Operation> operation = args.value("operation").map(text -> Operation.parse(text).orElseThrow(() ->
        new UsageException("'maintain': --operation must be one of " + String.join(", ",
            Arrays.stream(Operation.values()).map(Operation::cliName).toList()) + "; got '" + text + "'")));
    TributaryConfig config = ConfigOption.load(args);
    try {
      new MaintenanceJob(Sessions.start(config, name()), config).run(args.value("table"), operation, System.out);
    } catch (RuntimeException failure) {
      throw StorageFull.explain("maintain", failure, config, StorageFull.MAINTENANCE)
          .<RuntimeException>map(full -> full).orElse(failure);
    }
    return Tributary.OK;
  }
}
