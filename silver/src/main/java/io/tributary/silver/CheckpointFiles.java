package io.tributary.silver;

import io.tributary.common.lakehouse.CheckpointLogs;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The few files of a silver stream's Spark checkpoint that Tributary reads or writes: {@code metadata} (the query
 * id, which silver's commits carry), {@code offsets/N} and {@code commits/N} (the batches), and Iceberg's initial
 * offset {@code sources/0/offsets/0} (where a new stream starts reading bronze).
 */
final class CheckpointFiles {
  private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*\"([^\"]+)\"");

  private final Path root;
  private final FileSystem fs;

  CheckpointFiles(String checkpoint, Configuration hadoop) {
    this.root = new Path(checkpoint);
    try {
      this.fs = root.getFileSystem(hadoop);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot reach the checkpoint " + checkpoint, e);
    }
  }

  String location() {
    return root.toString();
  }

  /** Whether a stream has planned a batch here, or its start on bronze is already written. */
  boolean hasStarted() {
    return exists(new Path(root, "offsets")) && lastBatch("offsets").isPresent() || exists(initialOffset());
  }

  /** The query id Spark keeps in {@code metadata}; written here first when the stream has never run. */
  String queryId() {
    Path metadata = new Path(root, "metadata");
    if (exists(metadata)) {
      Matcher id = ID.matcher(read(metadata));
      if (!id.find()) {
        throw new IllegalStateException("Cannot read the query id in " + metadata);
      }
      return id.group(1);
    }
    String id = UUID.randomUUID().toString();
    write(metadata, "{\"id\":\"" + id + "\"}\n");
    return id;
  }

  /** The newest batch in {@code offsets} or {@code commits}. */
  OptionalLong lastBatch(String log) {
    Path folder = new Path(root, log);
    try {
      return CheckpointLogs.lastBatchNumber(fs, folder);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + folder, e);
    }
  }

  /** Iceberg's initial offset: the stream starts after every file {@code snapshotId} added ({@code position}). */
  void writeInitialOffset(long snapshotId, long position) {
    write(initialOffset(), "{\"version\":1,\"snapshot_id\":" + snapshotId + ",\"position\":" + position
        + ",\"scan_all_files\":false}");
  }

  /** The bronze snapshot of Iceberg's initial offset, if it is written. */
  OptionalLong initialOffsetSnapshot() {
    if (!exists(initialOffset())) {
      return OptionalLong.empty();
    }
    Matcher snapshot = Pattern.compile("\"snapshot_id\"\\s*:\\s*(-?\\d+)").matcher(read(initialOffset()));
    return snapshot.find() ? OptionalLong.of(Long.parseLong(snapshot.group(1))) : OptionalLong.empty();
  }

  /** When a file of the checkpoint (e.g. {@code commits/7}) was written. */
  java.util.Optional<java.time.Instant> modified(String file) {
    Path path = new Path(root, file);
    try {
      return fs.exists(path) ? java.util.Optional.of(java.time.Instant.ofEpochMilli(
          fs.getFileStatus(path).getModificationTime())) : java.util.Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + path, e);
    }
  }

  /** A small text file Tributary keeps next to Spark's, e.g. the bronze snapshot an initial load reads. */
  OptionalLong readNumber(String name) {
    Path file = new Path(root, name);
    return exists(file) ? OptionalLong.of(Long.parseLong(read(file).trim())) : OptionalLong.empty();
  }

  void writeNumber(String name, long value) {
    write(new Path(root, name), Long.toString(value));
  }

  /**
   * Copies the batch {@code batch} of this checkpoint (its offsets and commit, and those of the batch before) into a new
   * checkpoint with a new query id: a stream started there continues with batch {@code batch + 1}, as this one did
   * after it.
   */
  CheckpointFiles copyUpTo(long batch, String target, Configuration hadoop) {
    CheckpointFiles copy = new CheckpointFiles(target, hadoop);
    if (copy.exists(copy.root)) {
      throw new IllegalStateException("The checkpoint " + target + " exists already");
    }
    // Spark restarts from the latest batch only with the offsets of the one before it too.
    for (long copied = Math.max(0, batch - 1); copied <= batch; copied++) {
      for (String log : new String[] {"offsets", "commits"}) {
        Path file = new Path(new Path(root, log), Long.toString(copied));
        if (!exists(file)) {
          throw new IllegalStateException("The checkpoint " + root + " no longer holds batch " + copied + " ("
              + log + "/" + copied + "); Spark keeps the last spark.sql.streaming.minBatchesToRetain batches (100"
              + " by default)");
        }
        copy.write(new Path(new Path(copy.root, log), Long.toString(copied)), read(file));
      }
    }
    // Iceberg's initial offset only bounds a --once run; maintenance may have moved this one past the batch.
    OptionalLong resume = snapshotAfterBatch(batch);
    if (resume.isPresent()) {
      copy.writeInitialOffset(resume.getAsLong(), 0);
    }
    copy.queryId();
    return copy;
  }

  /**
   * A new checkpoint (new query id) that starts streaming right after an initial load of bronze snapshot
   * {@code snapshotId} ({@code position}: the files it added), as this one did; the load itself is not repeated.
   */
  CheckpointFiles copyAfterInitialLoad(String target, Configuration hadoop, long snapshotId, long position) {
    CheckpointFiles copy = new CheckpointFiles(target, hadoop);
    if (copy.exists(copy.root)) {
      throw new IllegalStateException("The checkpoint " + target + " exists already");
    }
    copy.writeNumber(InitialLoad.SNAPSHOT_FILE, snapshotId);
    copy.writeInitialOffset(snapshotId, position);
    copy.queryId();
    return copy;
  }

  /** Where in bronze Spark planned the batch to end: the source offset line of {@code offsets/N}, if written. */
  java.util.Optional<String> batchEnd(long batch) {
    Path file = new Path(new Path(root, "offsets"), Long.toString(batch));
    if (batch < 0 || !exists(file)) {
      return java.util.Optional.empty();
    }
    // Line 1 is the log version, line 2 the batch metadata, then one line per source (silver reads one).
    String[] lines = read(file).split("\n", -1);
    return lines.length >= 3 && !lines[2].isBlank() ? java.util.Optional.of(lines[2].trim())
        : java.util.Optional.empty();
  }

  /** The bronze snapshot the batch ends at (where a stream continuing after it resumes). */
  OptionalLong snapshotAfterBatch(long batch) {
    Path file = new Path(new Path(root, "offsets"), Long.toString(batch));
    if (!exists(file)) {
      return OptionalLong.empty();
    }
    Matcher snapshot = Pattern.compile("\"snapshot_id\"\\s*:\\s*(-?\\d+)").matcher(read(file));
    long id = -1;
    while (snapshot.find()) {
      id = Long.parseLong(snapshot.group(1));
    }
    return id < 0 ? OptionalLong.empty() : OptionalLong.of(id);
  }

  private Path initialOffset() {
    return new Path(root, "sources/0/offsets/0");
  }

  private boolean exists(Path path) {
    try {
      return fs.exists(path);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot reach " + path, e);
    }
  }

  private String read(Path file) {
    try (InputStream in = fs.open(file)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file, e);
    }
  }

  private void write(Path file, String text) {
    try (OutputStream out = fs.create(file, true)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + file, e);
    }
  }
}
