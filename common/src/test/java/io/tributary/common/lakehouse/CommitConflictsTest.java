package io.tributary.common.lakehouse;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.junit.jupiter.api.Test;

/** Which failures are retried: commits lost to concurrent writers, and nothing else. */
class CommitConflictsTest {
  private static Throwable wrapped(Throwable cause) {
    return new IllegalStateException("[FOREACH_BATCH_USER_FUNCTION_ERROR] An error occurred", new RuntimeException(cause));
  }

  @Test
  void restartsAfterCommitsThatLostToConcurrentWriters() {
    assertThat(CommitConflicts.reason(wrapped(new CommitFailedException("Version 9 already exists")))).isPresent();
    assertThat(CommitConflicts.reason(wrapped(new ValidationException("Found conflicting files that can contain"
        + " records matching true: [a.parquet]")))).isPresent();
    assertThat(CommitConflicts.reason(wrapped(new ValidationException("Cannot commit, found new delete for replaced"
        + " data file: a.parquet")))).isPresent();
    // Compaction replaced data files that this MERGE's position deletes point at.
    assertThat(CommitConflicts.reason(wrapped(new ValidationException("Cannot commit, missing data files:"
        + " [a.parquet]")))).hasValueSatisfying(reason -> assertThat(reason).startsWith(
            "a concurrent commit changed files this MERGE read: Cannot commit, missing data files"));
    // Maintenance rewrote (or dropped as dangling) the delete files this MERGE replaces with merged ones; seen in
    // MaintenanceWhileStreamingIT on the history table.
    assertThat(CommitConflicts.reason(wrapped(new ValidationException("Missing required files to delete:"
        + " /w/silver/customer_history/data/id_bucket=7/00000-1-deletes.parquet")))).isPresent();
    // Delta: an OPTIMIZE or another writer changed the files a MERGE read (Delta retries none of these itself).
    assertThat(CommitConflicts.reason(wrapped(new io.delta.exceptions.ConcurrentAppendException("Files were added"
        + " to the root of the table by a concurrent update")))).hasValueSatisfying(reason -> assertThat(reason)
            .startsWith("a Delta commit lost to a concurrent writer: "));
    assertThat(CommitConflicts.reason(wrapped(new io.delta.exceptions.ConcurrentDeleteReadException("This"
        + " transaction attempted to read one or more files that were deleted")))).isPresent();
  }

  @Test
  void doesNotRestartForOtherFailures() {
    assertThat(CommitConflicts.reason(wrapped(new ValidationException("Cannot find field 'x'")))).isEmpty();
    assertThat(CommitConflicts.reason(wrapped(new IllegalArgumentException("bad")))).isEmpty();
  }
}
