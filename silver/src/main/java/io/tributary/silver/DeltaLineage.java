package io.tributary.silver;

import io.tributary.common.config.SilverEntity;
import io.tributary.common.lakehouse.DeltaCommitMetadata;
import io.tributary.common.lakehouse.DeltaCommitMetadata.Commit;
import io.tributary.common.lakehouse.StreamCommits;
import io.tributary.common.lakehouse.TableAddress;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import org.apache.spark.sql.SparkSession;

/**
 * A Delta silver table's history as read once, and what a rollback or a rebuild from one of its versions needs of
 * it: which versions the log keeps, the version shown at a time, and the stream commit whose content a version
 * holds. Delta's history is a line, so the content of a version is found along its lineage: a RESTORE in it stands
 * for the version it restored.
 */
final class DeltaLineage {
  private final TableAddress table;
  /** Newest first. */
  private final List<Commit> history;

  private DeltaLineage(TableAddress table, List<Commit> history) {
    this.table = table;
    this.history = history;
  }

  /** The table's history with what silver's stream commits recorded. */
  static DeltaLineage read(SparkSession spark, TableAddress table) {
    return new DeltaLineage(table, DeltaCommitMetadata.history(spark, table.deltaPath(), 0, StreamCommits.STREAM_ID));
  }

  Commit newest() {
    return history.get(0);
  }

  /** The commit of {@code version}; fails naming the versions the log keeps when it has none. */
  Commit commit(long version) {
    return history.stream().filter(entry -> entry.version() == version).findFirst()
        .orElseThrow(() -> new IllegalArgumentException(table + " has no version " + version + " in its log (kept: "
            + history.get(history.size() - 1).version() + " to " + newest().version() + "); see DESCRIBE HISTORY "
            + table.sqlName()));
  }

  /** The newest version committed at {@code at} or before. */
  long versionAt(Instant at) {
    OptionalLong version = history.stream().filter(entry -> !entry.time().isAfter(at)).mapToLong(Commit::version)
        .max();
    if (version.isEmpty()) {
      throw new IllegalArgumentException(table + " has no version from " + at + " or before in its log; see DESCRIBE"
          + " HISTORY " + table.sqlName());
    }
    return version.getAsLong();
  }

  /**
   * The stream commit whose content {@code version} shows: the newest commit of a stream at or before it along its
   * lineage.
   */
  StreamRewind.WrittenBy writtenBy(long version, SilverEntity entity) {
    long wanted = version;
    for (Commit entry : history) {
      if (entry.version() > wanted) {
        continue;
      }
      if (entry.operation().equals("RESTORE")) {
        wanted = restoredVersion(entry);
        continue;
      }
      if (entry.recorded().containsKey(StreamCommits.BATCH_ID)) {
        return new StreamRewind.WrittenBy(entry.recorded().get(StreamCommits.STREAM_ID),
            Long.parseLong(entry.recorded().get(StreamCommits.BATCH_ID)), entry.time().toEpochMilli());
      }
      wanted = entry.version() - 1;
    }
    throw StreamRewind.noStreamCommit("version " + version, table.toString(), entity);
  }

  private long restoredVersion(Commit restore) {
    String version = restore.parameters().get("version");
    if (version != null && !version.isBlank() && !version.equals("null")) {
      return Long.parseLong(version);
    }
    String timestamp = restore.parameters().get("timestamp");
    return versionAt(Instant.parse(timestamp.replace(' ', 'T') + (timestamp.endsWith("Z") ? "" : "Z")));
  }
}
