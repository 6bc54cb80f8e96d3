package io.tributary.common.lakehouse;

import io.delta.tables.DeltaTable;
import io.tributary.common.lakehouse.DeltaCommitMetadata.Commit;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.spark.sql.SparkSession;

/**
 * Moves a Delta table back to an earlier version with Delta's {@code RESTORE}, after a preview of what that changes:
 * the Delta counterpart of {@link TableRollback}. RESTORE is a new version, so the versions after the target stay
 * in the history and a rollback is undone by restoring the version that was current before it.
 */
public final class DeltaTableRollback {
  /**
   * Tries of a RESTORE that lost to a concurrent commit: it reads the whole table, so any commit between its read
   * and its own (a batch that was in flight when the table was marked, a gold run) makes Delta refuse it, and
   * restoring the same version again is right whatever that commit wrote.
   */
  private static final int RESTORE_TRIES = 5;

  private DeltaTableRollback() {}

  /** The version a rollback targets: {@code version} if the log keeps it, or the one the table showed at a time. */
  public static long target(DeltaHistory history, OptionalLong version, Optional<Instant> asOf) {
    if (version.isPresent()) {
      return history.commit(version.getAsLong()).version();
    }
    return history.versionAt(asOf.orElseThrow(() -> new IllegalArgumentException("give a version or a time")));
  }

  /** What restoring {@code target} changes, against the newest version of {@code history}. */
  public static TableRollback.Preview preview(SparkSession spark, TableAddress table, DeltaHistory history,
      long target) {
    Commit current = history.newest();
    Commit then = history.commit(target);
    return TableRollback.compare(spark, table.sqlName(), current.version(), current.time(), target, then.time());
  }

  /** Restores {@code target} (its files and its table properties) in one commit, again if a concurrent one won. */
  public static void restore(SparkSession spark, TableAddress table, long target) {
    for (int attempt = 1; ; attempt++) {
      try {
        DeltaTable.forPath(spark, table.deltaPath()).restoreToVersion(target);
        return;
      } catch (RuntimeException e) {
        if (CommitConflicts.reason(e).isEmpty() || attempt == RESTORE_TRIES) {
          throw e;
        }
      }
    }
  }
}
