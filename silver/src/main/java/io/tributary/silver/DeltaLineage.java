package io.tributary.silver;

import io.tributary.common.config.SilverEntity;
import io.tributary.common.lakehouse.DeltaCommitMetadata.Commit;
import io.tributary.common.lakehouse.DeltaHistory;
import io.tributary.common.lakehouse.StreamCommits;
import io.tributary.common.lakehouse.TableAddress;
import java.time.Instant;
import org.apache.spark.sql.SparkSession;

/**
 * A Delta silver table's history as read once ({@link DeltaHistory}), and what a rollback or a rebuild from one of
 * its versions needs of it besides: the stream commit whose content a version holds. Delta's history is a line, so
 * the content of a version is found along its lineage: a RESTORE in it stands for the version it restored.
 */
final class DeltaLineage {
  private final TableAddress table;
  private final DeltaHistory history;

  private DeltaLineage(TableAddress table, DeltaHistory history) {
    this.table = table;
    this.history = history;
  }

  /** The table's history with what silver's stream commits recorded. */
  static DeltaLineage read(SparkSession spark, TableAddress table) {
    return new DeltaLineage(table, DeltaHistory.read(spark, table, StreamCommits.STREAM_ID));
  }

  DeltaHistory history() {
    return history;
  }

  /**
   * The stream commit whose content {@code version} shows: the newest commit of a stream at or before it along its
   * lineage.
   */
  StreamRewind.WrittenBy writtenBy(long version, SilverEntity entity) {
    long wanted = version;
    for (Commit entry : history.commits()) {
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
    return history.versionAt(Instant.parse(timestamp.replace(' ', 'T') + (timestamp.endsWith("Z") ? "" : "Z")));
  }
}
