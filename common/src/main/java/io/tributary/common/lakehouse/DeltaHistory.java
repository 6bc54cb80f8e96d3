package io.tributary.common.lakehouse;

import io.tributary.common.lakehouse.DeltaCommitMetadata.Commit;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import org.apache.spark.sql.SparkSession;

/**
 * A Delta table's history as read once (Delta's own, so its times are the ones time travel by timestamp goes by),
 * and the versions a rollback or rebuild names in it: a version the log keeps, or the version shown at a time.
 */
public final class DeltaHistory {
  private final TableAddress table;
  /** Newest first. */
  private final List<Commit> commits;

  private DeltaHistory(TableAddress table, List<Commit> commits) {
    this.table = table;
    this.commits = commits;
  }

  /**
   * The whole history, each commit with what Tributary recorded holding {@code key}; an
   * {@link IllegalArgumentException} naming the folder when there is no Delta table there.
   */
  public static DeltaHistory read(SparkSession spark, TableAddress table, String key) {
    if (!table.exists(spark)) {
      throw new IllegalArgumentException(table + " is no Delta table (nothing at " + table.deltaPath() + ")");
    }
    List<Commit> commits = DeltaCommitMetadata.history(spark, table.deltaPath(), 0, key);
    if (commits.isEmpty()) {
      throw new IllegalStateException(table + " has no commits in its log");
    }
    return new DeltaHistory(table, commits);
  }

  /** Newest first. */
  public List<Commit> commits() {
    return commits;
  }

  public Commit newest() {
    return commits.get(0);
  }

  /** The commit of {@code version}; fails naming the versions the log keeps when it has none. */
  public Commit commit(long version) {
    return commits.stream().filter(entry -> entry.version() == version).findFirst()
        .orElseThrow(() -> new IllegalArgumentException(table + " has no version " + version + " in its log (kept: "
            + commits.get(commits.size() - 1).version() + " to " + newest().version() + "); see DESCRIBE HISTORY "
            + table.sqlName()));
  }

  /** The newest version committed at {@code at} or before. */
  public long versionAt(Instant at) {
    OptionalLong version = commits.stream().filter(entry -> !entry.time().isAfter(at)).mapToLong(Commit::version)
        .max();
    if (version.isEmpty()) {
      throw new IllegalArgumentException(table + " has no version from " + at + " or before in its log; see DESCRIBE"
          + " HISTORY " + table.sqlName());
    }
    return version.getAsLong();
  }
}
