package io.tributary.launcher;

import io.tributary.common.config.TributaryConfig;
import io.tributary.maintenance.MaintenanceJob;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code health --config FILE [--table NAMESPACE.TABLE]}: one line per table: snapshots, files, sizes. */
@Command(name = "health", description = "One line per table: snapshots, data files, average file size, small files,"
    + " delete files; changes nothing.")
final class HealthCommand extends JobCommand {
  @Mixin
  private ConfigOption config;

  @Option(names = "--table", paramLabel = "NS.TABLE", description = "Only this table.")
  private String table;

  @Override
  Job check() {
    TributaryConfig loaded = config.load();
    return new Job("health", loaded,
        spark -> new MaintenanceJob(spark, loaded).health(Optional.ofNullable(table), System.out));
  }
}
