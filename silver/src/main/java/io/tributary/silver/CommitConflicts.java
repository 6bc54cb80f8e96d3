package io.tributary.silver;

import java.util.Optional;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;

/**
 * The silver failures a restart fixes: an Iceberg commit that lost to a concurrent writer (another stream on the
 * shared quarantine table, or maintenance rewriting files under a MERGE) after Iceberg's own retries, or a commit
 * whose outcome is unknown. A restart replays the batch from the checkpoint, and {@link CommittedBatches} skips what
 * already landed, so nothing is applied twice.
 */
final class CommitConflicts {
  private CommitConflicts() {}

  static Optional<String> reason(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof CommitFailedException) {
        return Optional.of("an Iceberg commit lost to a concurrent writer: " + cause.getMessage());
      }
      if (cause instanceof CommitStateUnknownException) {
        return Optional.of("an Iceberg commit's outcome is unknown: " + firstLine(cause.getMessage()));
      }
      // "Found conflicting files", "found new delete for replaced data file", and "Cannot commit, missing data
      // files" when compaction replaced files this MERGE read or deletes rows of.
      if (cause instanceof ValidationException && cause.getMessage() != null
          && (cause.getMessage().contains("conflicting") || cause.getMessage().contains("found new delete")
              || cause.getMessage().contains("missing data files"))) {
        return Optional.of("a concurrent commit changed files this MERGE read: " + firstLine(cause.getMessage()));
      }
    }
    return Optional.empty();
  }

  private static String firstLine(String text) {
    return text == null ? "" : text.lines().findFirst().orElse("");
  }
}
