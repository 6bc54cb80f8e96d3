package io.tributary.maintenance;

import io.tributary.common.config.TableFormat;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Which maintenance operations apply to a table, in the order they run, and which of them its policy says are due
 * given the table's health. Decides from numbers alone; the job measures them.
 */
final class DueOperations {
  /**
   * In the order they run: tombstones are purged before compaction, so that compaction writes files without them;
   * on Delta, deletion vectors after compaction, which rewrites the small files that carry one already.
   */
  static final List<Operation> ICEBERG = List.of(Operation.PURGE_TOMBSTONES, Operation.REWRITE_DATA_FILES,
      Operation.REWRITE_POSITION_DELETES, Operation.REWRITE_MANIFESTS, Operation.EXPIRE_SNAPSHOTS,
      Operation.REMOVE_ORPHAN_FILES);
  static final List<Operation> DELTA = List.of(Operation.PURGE_TOMBSTONES, Operation.OPTIMIZE,
      Operation.PURGE_DELETION_VECTORS, Operation.VACUUM);

  private DueOperations() {}

  /** The operations that apply to {@code table}: purging tombstones only where deletes leave them. */
  static List<Operation> applicable(MaintainedTable table) {
    return (table.format() == TableFormat.DELTA ? DELTA : ICEBERG).stream()
        .filter(operation -> operation != Operation.PURGE_TOMBSTONES || table.keepsTombstones()).toList();
  }

  /**
   * Whether the policy of {@code table} says {@code operation} is due.
   *
   * @param manifests the table's manifest count, asked only for manifest rewrites (it costs a metadata query)
   */
  static boolean isDue(Operation operation, MaintainedTable table, TableHealth health, LongSupplier manifests) {
    long minFiles = table.policy().minInputFiles();
    return switch (operation) {
      case REWRITE_DATA_FILES -> health.smallFiles() >= minFiles || health.deleteFiles() > 0;
      // Files with deletion vectors are purged next, whether small or not.
      case OPTIMIZE -> health.smallFiles() >= minFiles;
      case PURGE_DELETION_VECTORS -> health.deleteFiles() > 0;
      case REWRITE_POSITION_DELETES -> health.deleteFiles() > 1;
      case REWRITE_MANIFESTS -> manifests.getAsLong() >= minFiles;
      case EXPIRE_SNAPSHOTS -> health.snapshots() > table.policy().retainLast();
      // Each decides for itself: by tombstone age, by file age, by retention.
      case PURGE_TOMBSTONES, REMOVE_ORPHAN_FILES, VACUUM -> true;
    };
  }

  /** Purging tombstones and compaction change the files, so what is due after them is decided on fresh health. */
  static boolean changesHealth(Operation operation) {
    return operation == Operation.PURGE_TOMBSTONES || operation == Operation.REWRITE_DATA_FILES
        || operation == Operation.OPTIMIZE;
  }
}
