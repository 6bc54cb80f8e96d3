package io.tributary.launcher;

import io.tributary.common.cli.UsageException;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.StorageFull;
import io.tributary.maintenance.MaintenanceJob;
import io.tributary.maintenance.Operation;
import java.util.Arrays;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code maintain --config FILE [--table NAMESPACE.TABLE] [--operation OP]}: runs what each table's maintenance
 * policy says is due (or one operation), printing each table's health before and after.
 */
@Command(name = "maintain", description = "Runs what each table's maintenance policy says is due: compaction,"
    + " snapshot expiry, orphan file removal (safe next to the running streams), with each table's health before and"
    + " after.")
final class MaintainCommand extends JobCommand {
  @Mixin
  private ConfigOption config;

  @Option(names = "--table", paramLabel = "NS.TABLE", description = "Only this table.")
  private String table;

  @Option(names = "--operation", paramLabel = "OP", description = "Only this operation, due or not: one of"
      + " purge-tombstones, rewrite-data-files, rewrite-position-deletes, rewrite-manifests, expire-snapshots,"
      + " remove-orphan-files; for Delta tables purge-tombstones, optimize, purge-deletion-vectors, vacuum.")
  private String operation;

  @Override
  Job check() {
    Optional<Operation> only = Optional.ofNullable(operation).map(text -> Operation.parse(text).orElseThrow(() ->
        new UsageException("'maintain': --operation must be one of " + String.join(", ",
            Arrays.stream(Operation.values()).map(Operation::cliName).toList()) + "; got '" + text + "'")));
    TributaryConfig loaded = config.load();
    return new Job("maintain", loaded, spark -> {
      try {
        return new MaintenanceJob(spark, loaded).run(Optional.ofNullable(table), only, System.out);
      } catch (RuntimeException failure) {
        throw StorageFull.explain("maintain", failure, loaded, StorageFull.MAINTENANCE)
            .<RuntimeException>map(full -> full).orElse(failure);
      }
    });
  }
}
