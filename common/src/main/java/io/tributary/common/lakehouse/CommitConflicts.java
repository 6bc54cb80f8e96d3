package io.tributary.common.lakehouse;

import java.util.Optional;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;

/**
 * The failures a retry fixes: an Iceberg commit that lost to a concurrent writer (another stream on the shared
 * quarantine table, maintenance rewriting files under a MERGE, a stream committing under maintenance) after
 * Iceberg's own retries, or a commit whose outcome is unknown; a Delta commit that lost to one (Delta does not retry
 * a MERGE whose files an OPTIMIZE or another writer changed: it throws one of its concurrent-modification
 * exceptions). Silver restarts the stream (its batch replay is
 * skipped where it already landed); maintenance runs the operation again on the refreshed table. Any other
 * validation failure (an unknown column) is not retried.
 */
public final class CommitConflicts {
  private CommitConflicts() {}

  /** Why a failure is a lost commit that a retry or restart fixes; empty for any other failure. */
  public static Optional<String> reason(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof CommitFailedException) {
        return Optional.of("an Iceberg commit lost to a concurrent writer: " + cause.getMessage());
      }
      if (cause instanceof org.apache.spark.sql.delta.DeltaConcurrentModificationException) {
        return Optional.of("a Delta commit lost to a concurrent writer: " + firstLine(cause.getMessage()));
      }
      if (cause instanceof CommitStateUnknownException) {
        return Optional.of("an Iceberg commit's outcome is unknown: " + firstLine(cause.getMessage()));
      }
      // "Found conflicting files", "found new delete for replaced data file", and "Cannot commit, missing data
      // files" when compaction replaced files this MERGE read or deletes rows of; "Missing required files to
      // delete" when a MERGE replaces the position-delete files of a data file (file-scoped deletes) that
      // maintenance rewrote or removed as dangling in the meantime.
      if (cause instanceof ValidationException && cause.getMessage() != null
          && (cause.getMessage().contains("conflicting") || cause.getMessage().contains("found new delete")
              || cause.getMessage().contains("found new position delete")
              || cause.getMessage().contains("missing data files")
              || cause.getMessage().contains("Missing required files to delete"))) {
        return Optional.of("a concurrent commit changed files this MERGE read: " + firstLine(cause.getMessage()));
      }
    }
    return Optional.empty();
  }

  private static String firstLine(String text) {
    return text == null ? "" : text.lines().findFirst().orElse("");
  }
}
