package io.tributary.silver;

import io.tributary.common.config.SilverDatabase;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.SilverCheckpoints;
import io.tributary.common.lakehouse.StreamCommits;
import io.tributary.common.lakehouse.TableAddress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;

/**
 * A new checkpoint for an entity's stream that continues right after the batch an earlier silver snapshot holds:
 * with the table rolled back to (or rebuilt from) that snapshot, the stream re-applies every bronze change after it,
 * none twice. The snapshot's lineage names the stream and batch that wrote it (each silver commit carries them); the
 * checkpoint is that stream's, found among the entity's checkpoints, and copied up to that batch.
 */
final class StreamRewind {
  /**
   * @param checkpoint the new checkpoint
   * @param fromCheckpoint the checkpoint it was copied from
   * @param batch the last batch the snapshot holds ({@link InitialLoad#BATCH_ID} for an initial load)
   * @param committedMillis when that batch committed to the table (the quarantine rows and the table's own state
   *     are taken as of then)
   * @param streamId the stream that committed that batch (its id in the commit)
   */
  record Rewind(String checkpoint, String fromCheckpoint, long batch, long committedMillis, String streamId) {}

  private StreamRewind() {}

  /**
   * Prepares a checkpoint for a stream of one table of a database alone (the shadow of a rebuild from a snapshot or
   * version), from the database's stream: it continues right after the batch {@code written}, reading the same bronze
   * table. {@code icebergBronze} is bronze when it is an Iceberg table, empty for Delta. The table is not touched.
   */
  static Rewind toDatabaseTable(TributaryConfig config, SilverDatabase database, SilverEntity entity,
      WrittenBy written, Optional<Table> icebergBronze, String purpose, Configuration hadoop) {
    String databaseCheckpoint = SilverCheckpoints.database(config, database);
    return rewind(written, icebergBronze, entity, streamId -> {
      CheckpointFiles files = new CheckpointFiles(databaseCheckpoint, hadoop);
      if (!files.hasStarted() || !DatabaseFanOut.tableStream(files.queryId(), entity.table()).equals(streamId)) {
        throw new IllegalStateException("The content of " + entity.table() + " to go back to was written by silver"
            + " stream " + streamId + ", whose checkpoint is not " + databaseCheckpoint + " (the database's stream"
            + " now runs from there); rebuild the table from bronze instead (tributary rebuild --table "
            + entity.table() + ")");
      }
      return files;
    }, databaseCheckpoint + "@" + purpose + "-" + entity.table().table() + "-" + System.currentTimeMillis(), hadoop);
  }

  /**
   * Which stream commit a table's content goes back to: the stream, its batch and when it committed.
   *
   * @param committedMillis when the batch committed to the table
   */
  record WrittenBy(String streamId, long batch, long committedMillis) {}

  /**
   * Prepares the checkpoint for an entity's table whose content is that {@code written} left (found along an Iceberg
   * snapshot's ancestry, {@link #writtenBy}, or a Delta version's lineage); {@code icebergBronze} is bronze when it is
   * an Iceberg table, empty for Delta ({@link #icebergBronze}). The table is not touched.
   */
  static Rewind to(TributaryConfig config, SilverEntity entity, WrittenBy written, Optional<Table> icebergBronze,
      String purpose, Configuration hadoop) {
    return rewind(written, icebergBronze, entity, streamId -> checkpointOf(config, entity, streamId, hadoop),
        SilverCheckpoints.next(config, entity, purpose), hadoop);
  }

  /** Bronze when it is an Iceberg table (the checkpoint's offsets name its snapshots), empty for Delta. */
  static Optional<Table> icebergBronze(SparkSession spark, TableAddress bronze) {
    if (bronze.format() == TableFormat.DELTA) {
      return Optional.empty();
    }
    try {
      return Optional.of(Spark3Util.loadIcebergTable(spark, bronze.sqlName()));
    } catch (Exception e) {
      throw new IllegalStateException("cannot load " + bronze.sqlName() + ": " + e.getMessage(), e);
    }
  }

  /** The stream commit whose content snapshot {@code snapshotId} of an Iceberg table shows (along its ancestry). */
  static WrittenBy writtenBy(Table silver, long snapshotId, SilverEntity entity) {
    for (Snapshot snapshot = silver.snapshot(snapshotId); snapshot != null;
        snapshot = snapshot.parentId() == null ? null : silver.snapshot(snapshot.parentId())) {
      if (snapshot.summary().get(StreamCommits.STREAM_ID) != null) {
        return new WrittenBy(snapshot.summary().get(StreamCommits.STREAM_ID),
            Long.parseLong(snapshot.summary().get(StreamCommits.BATCH_ID)), snapshot.timestampMillis());
      }
    }
    throw noStreamCommit("snapshot " + snapshotId, silver.name(), entity);
  }

  private static IllegalStateException noLongerHolds(CheckpointFiles source, long batch, SilverEntity entity) {
    return new IllegalStateException("The checkpoint " + source.location() + " no longer holds batch " + batch
        + " (Spark keeps the last spark.sql.streaming.minBatchesToRetain batches, 100 by default); rebuild the"
        + " table from bronze instead (tributary rebuild --table " + entity.table() + ")");
  }

  static IllegalStateException noStreamCommit(String what, String table, SilverEntity entity) {
    return new IllegalStateException("No silver stream commit is in the history of " + what + " of " + table
        + ", so where its stream stood is unknown; rebuild the table from bronze instead (tributary rebuild --table "
        + entity.table() + ")");
  }

  private static Rewind rewind(WrittenBy written, Optional<Table> icebergBronze, SilverEntity entity,
      Function<String, CheckpointFiles> checkpointOfStream, String target, Configuration hadoop) {
    long batch = written.batch();
    CheckpointFiles source = checkpointOfStream.apply(written.streamId());
    if (icebergBronze.isEmpty()) {
      // Delta bronze: Spark's own offsets say where the batch ended (no initial load, no initial offset).
      if (source.batchEnd(batch).isEmpty()) {
        throw noLongerHolds(source, batch, entity);
      }
      source.copyUpTo(batch, target, hadoop);
      return new Rewind(target, source.location(), batch, written.committedMillis(), written.streamId());
    }
    Table bronze = icebergBronze.get();
    bronze.refresh();
    if (batch == InitialLoad.BATCH_ID) {
      long loaded = source.readNumber(InitialLoad.SNAPSHOT_FILE).orElseThrow(() -> new IllegalStateException(
          "The checkpoint " + source.location() + " does not record which bronze snapshot its initial load read"));
      requireKept(bronze, loaded, entity);
      source.copyAfterInitialLoad(target, hadoop, loaded, InitialLoad.addedFiles(bronze, bronze.snapshot(loaded)));
      return new Rewind(target, source.location(), batch, written.committedMillis(), written.streamId());
    }
    OptionalLong resume = source.snapshotAfterBatch(batch);
    if (resume.isEmpty()) {
      throw noLongerHolds(source, batch, entity);
    }
    requireKept(bronze, resume.getAsLong(), entity);
    source.copyUpTo(batch, target, hadoop);
    return new Rewind(target, source.location(), batch, written.committedMillis(), written.streamId());
  }

  /** The entity's checkpoint (the configured one or one made by a rebuild or rollback) whose query is this stream. */
  private static CheckpointFiles checkpointOf(TributaryConfig config, SilverEntity entity, String streamId,
      Configuration hadoop) {
    String configured = SilverCheckpoints.configured(config, entity);
    List<String> candidates = new ArrayList<>();
    candidates.add(configured);
    Path base = new Path(configured);
    try {
      FileSystem fs = base.getFileSystem(hadoop);
      if (fs.exists(base.getParent())) {
        for (FileStatus sibling : fs.listStatus(base.getParent())) {
          if (sibling.getPath().getName().startsWith(base.getName() + "@")) {
            candidates.add(sibling.getPath().toString());
          }
        }
      }
      for (String candidate : candidates) {
        if (fs.exists(new Path(candidate, "metadata"))) {
          CheckpointFiles files = new CheckpointFiles(candidate, hadoop);
          if (files.queryId().equals(streamId)) {
            return files;
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list the checkpoints next to " + configured, e);
    }
    throw new IllegalStateException("The checkpoint of silver stream " + streamId + " (which wrote the snapshot) is"
        + " not among " + candidates + "; rebuild the table from bronze instead (tributary rebuild --table "
        + entity.table() + ")");
  }

  private static void requireKept(Table bronze, long snapshotId, SilverEntity entity) {
    if (bronze.snapshot(snapshotId) == null) {
      throw new IllegalStateException("Bronze snapshot " + snapshotId + ", where the stream stood then, was expired"
          + " by maintenance; rebuild the table from all of bronze instead (tributary rebuild --table "
          + entity.table() + ")");
    }
  }
}
