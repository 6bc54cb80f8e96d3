package io.tributary.maintenance;

import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.CheckpointLogs;
import io.tributary.common.lakehouse.SilverCheckpoints;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Where the silver streams reading a bronze table stand, from their checkpoints: the Iceberg snapshot (or Delta
 * version) each one's next micro-batch starts at. Spark replays a batch that is in {@code offsets/} but not in {@code commits/} from the
 * previous batch's end, so the position is the end of the last committed batch (or the stream's initial offset
 * before its first commit). That snapshot and every later one must survive snapshot expiry.
 */
final class StreamPositions {
  /** Iceberg's source offset names its snapshot, Delta's its version. */
  private static final Pattern POSITION = Pattern.compile("\"(?:snapshot_id|reservoirVersion)\"\\s*:\\s*(-?\\d+)");

  private StreamPositions() {}

  /**
   * Stream name (silver-customers) → the checkpoint of each silver stream reading {@code bronzeTable}: the one its
   * silver table names in its properties (see {@link SilverCheckpoints}), or the configured one before the table
   * exists.
   */
  static Map<String, String> readersOf(TributaryConfig config, TableName bronzeTable,
      Function<TableName, Optional<Map<String, String>>> silverProperties) {
    Map<String, String> checkpoints = new LinkedHashMap<>();
    for (SilverEntity entity : config.silver().entityList()) {
      if (entity.source().equals(bronzeTable)) {
        checkpoints.put("silver-" + entity.name(), silverProperties.apply(entity.table())
            .map(properties -> SilverCheckpoints.current(config, entity, properties))
            .orElseGet(() -> SilverCheckpoints.configured(config, entity)));
      }
    }
    for (io.tributary.common.config.SilverDatabase database : config.silver().databaseList()) {
      if (database.source().equals(bronzeTable)) {
        checkpoints.put("silver-database-" + database.name(), SilverCheckpoints.database(config, database));
      }
    }
    return checkpoints;
  }

  /** The snapshot (or Delta version) a stream with this checkpoint resumes at; empty before it has one. */
  static OptionalLong position(String checkpoint, Configuration hadoop) {
    try {
      Path root = new Path(checkpoint);
      FileSystem fs = root.getFileSystem(hadoop);
      OptionalLong committed = CheckpointLogs.lastBatchNumber(fs, new Path(root, "commits"));
      Path offset = committed.isPresent() ? new Path(root, "offsets/" + committed.getAsLong())
          : new Path(root, "sources/0/offsets/0");
      if (!fs.exists(offset)) {
        // A new stream loading bronze first (silver's InitialLoad) records the snapshot it reads before its start.
        Path loading = new Path(root, "tributary-initial-load-snapshot");
        if (fs.exists(loading)) {
          try (InputStream in = fs.open(loading)) {
            return OptionalLong.of(Long.parseLong(new String(in.readAllBytes(), StandardCharsets.UTF_8).trim()));
          }
        }
        // Delta's source records no initial offset: its first batch, planned but not committed, reads the version
        // its offset names (the table as of the stream's start).
        Path first = new Path(root, "offsets/0");
        return committed.isEmpty() && fs.exists(first) ? snapshotIn(fs, first) : OptionalLong.empty();
      }
      return snapshotIn(fs, offset);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the stream checkpoint " + checkpoint, e);
    }
  }

  /**
   * Moves a stream's initial offset (Iceberg's {@code sources/0/offsets/0}) up to where it resumes. Iceberg computes
   * the end of a {@code Trigger.AvailableNow} run ({@code --once}) by walking from the initial offset, so without
   * this a {@code --once} stream would need every snapshot since it first started. Only a stream that has committed
   * a batch is moved (before that, the initial offset is where it starts); returns the snapshot it was moved from.
   */
  static OptionalLong moveInitialOffset(String checkpoint, Configuration hadoop) {
    try {
      Path root = new Path(checkpoint);
      FileSystem fs = root.getFileSystem(hadoop);
      Path initial = new Path(root, "sources/0/offsets/0");
      OptionalLong committed = CheckpointLogs.lastBatchNumber(fs, new Path(root, "commits"));
      if (committed.isEmpty() || !fs.exists(initial)) {
        return OptionalLong.empty();
      }
      OptionalLong from = snapshotIn(fs, initial);
      OptionalLong to = position(checkpoint, hadoop);
      if (from.isEmpty() || to.isEmpty() || from.getAsLong() == to.getAsLong()) {
        return OptionalLong.empty();
      }
      // Written aside, then moved over the old one (on the local file system and HDFS by one rename; where rename
      // does not replace, there is a short moment without the file).
      Path written = new Path(initial.getParent(), ".0.tributary-" + System.nanoTime());
      try (var out = fs.create(written, false)) {
        out.write(("{\"version\":1,\"snapshot_id\":" + to.getAsLong()
            + ",\"position\":0,\"scan_all_files\":false}").getBytes(StandardCharsets.UTF_8));
      }
      fs.delete(new Path(initial.getParent(), ".0.crc"), false);
      if (!fs.rename(written, initial) && !(fs.delete(initial, false) && fs.rename(written, initial))) {
        throw new IOException("cannot replace " + initial);
      }
      return from;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot move the initial offset of the stream checkpoint " + checkpoint, e);
    }
  }

  private static OptionalLong snapshotIn(FileSystem fs, Path file) throws IOException {
    String text;
    try (InputStream in = fs.open(file)) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Matcher snapshot = POSITION.matcher(text);
    long id = -1;
    while (snapshot.find()) { // the sources' lines come last; silver streams have one source
      id = Long.parseLong(snapshot.group(1));
    }
    return id < 0 ? OptionalLong.empty() : OptionalLong.of(id);
  }

}
