package io.tributary.bronze;

import io.tributary.common.lakehouse.CheckpointLogs;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The Kafka offsets a bronze stream's Spark checkpoint holds: {@code offsets/N} (where batch N ends; Spark writes it
 * before it runs the batch), {@code commits/N} (batch N is done) and the Kafka source's initial offsets
 * {@code sources/0/0} (where batch 0 starts).
 */
final class BronzeCheckpoint {
  private final String location;
  private final Configuration hadoop;

  BronzeCheckpoint(String location, Configuration hadoop) {
    this.location = location;
    this.hadoop = hadoop;
  }

  /** Where batch {@code batch} starts: the end of the batch before it, or the stream's initial offsets. */
  KafkaOffsets startOf(long batch) {
    Optional<KafkaOffsets> previous = batch > 0 ? endOf(batch - 1) : Optional.empty();
    return previous.or(this::initialOffsets).orElse(KafkaOffsets.NONE);
  }

  /** Where batch {@code batch} ends (exclusive), as Spark planned it. */
  Optional<KafkaOffsets> endOf(long batch) {
    // Line 1 is the log version, line 2 the batch metadata, then one line per source (bronze reads one).
    return read(new Path(new Path(location, "offsets"), Long.toString(batch)))
        .map(text -> text.split("\n", -1))
        .filter(lines -> lines.length >= 3 && !lines[2].isBlank())
        .map(lines -> parse(lines[2], "offsets/" + batch));
  }

  /** Where the next batch starts: the end of the last committed batch; empty when none is committed. */
  KafkaOffsets resumeOffsets() {
    OptionalLong committed;
    Path commits = new Path(location, "commits");
    try {
      committed = CheckpointLogs.lastBatchNumber(commits.getFileSystem(hadoop), commits);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the checkpoint " + location, e);
    }
    return committed.isEmpty() ? KafkaOffsets.NONE : endOf(committed.getAsLong()).orElse(KafkaOffsets.NONE);
  }

  /**
   * Moves the newest batch files aside when they cannot be read (truncated or overwritten by something else), so that
   * Spark plans that batch again: safe for bronze, whose table records what it has loaded, and the only way the
   * stream could start at all. Returns the files moved aside.
   */
  List<String> setAsideDamagedLastBatch() {
    List<String> moved = new ArrayList<>();
    Path offsets = new Path(location, "offsets");
    Path commits = new Path(location, "commits");
    try {
      FileSystem fs = offsets.getFileSystem(hadoop);
      while (true) {
        OptionalLong lastPlanned = CheckpointLogs.lastBatchNumber(fs, offsets);
        OptionalLong lastCommitted = CheckpointLogs.lastBatchNumber(fs, commits);
        long last = Math.max(lastPlanned.orElse(-1), lastCommitted.orElse(-1));
        if (last < 0) {
          return moved;
        }
        Path plan = new Path(offsets, Long.toString(last));
        Path commit = new Path(commits, Long.toString(last));
        boolean damaged = fs.exists(plan) && !readable(plan, 3) || fs.exists(commit) && !readable(commit, 2);
        if (!damaged) {
          return moved;
        }
        for (Path file : List.of(plan, commit)) {
          if (fs.exists(file)) {
            Path aside = new Path(file.getParent(), file.getName() + ".damaged-" + System.currentTimeMillis());
            fs.rename(file, aside);
            fs.delete(new Path(file.getParent(), "." + file.getName() + ".crc"), false);
            moved.add(file.toString());
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the checkpoint " + location, e);
    }
  }

  /** A batch log file: the version line {@code v1}, then JSON lines ({@code lines} in all). */
  private boolean readable(Path file, int lines) {
    String[] text = read(file).orElse("").split("\n", -1);
    if (text.length < lines || !text[0].startsWith("v")) {
      return false;
    }
    for (int line = 1; line < lines; line++) {
      try {
        if (!JSON.readTree(text[line]).isObject()) {
          return false;
        }
      } catch (IOException | RuntimeException e) {
        return false;
      }
    }
    return true;
  }

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

  /** The Kafka source's first offsets: a zero byte, {@code v1}, then the JSON. */
  private Optional<KafkaOffsets> initialOffsets() {
    return read(new Path(location, "sources/0/0"))
        .filter(text -> text.indexOf('{') >= 0)
        .map(text -> parse(text.substring(text.indexOf('{')), "sources/0/0"));
  }

  private KafkaOffsets parse(String json, String file) {
    try {
      return KafkaOffsets.parse(json.trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("The checkpoint file " + new Path(location, file) + " is damaged ("
          + e.getMessage() + "); remove it and the files of later batches, then run bronze again: the table records"
          + " what it has loaded, so nothing is loaded twice", e);
    }
  }

  private Optional<String> read(Path file) {
    try {
      FileSystem fs = file.getFileSystem(hadoop);
      if (!fs.exists(file)) {
        return Optional.empty();
      }
      try (InputStream in = fs.open(file)) {
        return Optional.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file, e);
    }
  }
}
