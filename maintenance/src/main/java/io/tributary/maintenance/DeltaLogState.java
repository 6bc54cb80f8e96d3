package io.tributary.maintenance;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;
import org.apache.spark.sql.delta.Snapshot;
import scala.Option;

/**
 * What a Delta table's log says, read without touching a data file: the files of the latest version (with their
 * deletion vectors), the versions the log still keeps, and when a version was committed.
 */
final class DeltaLogState {
  private static final Pattern COMMIT = Pattern.compile("\\d{20}\\.json");

  private final Snapshot snapshot;
  private final FileSystem fs;
  private final Path logFolder;

  private DeltaLogState(Snapshot snapshot, FileSystem fs, Path logFolder) {
    this.snapshot = snapshot;
    this.fs = fs;
    this.logFolder = logFolder;
  }

  static DeltaLogState read(SparkSession spark, String path) {
    DeltaLog log = DeltaLog.forTable(spark, new Path(path));
    try {
      return new DeltaLogState(log.update(false, Option.empty(), Option.empty()), log.logPath().getFileSystem(
          spark.sessionState().newHadoopConf()), log.logPath());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the log of " + path, e);
    }
  }

  /** The table's properties at the latest version; empty when no table is there. */
  java.util.Map<String, String> properties() {
    return scala.jdk.javaapi.CollectionConverters.asJava(snapshot.metadata().configuration());
  }

  /** The latest version (-1 when no table is there). */
  long version() {
    return snapshot.version();
  }

  /** The files of the latest version: Delta's add actions ({@code path}, {@code size}, {@code deletionVector}...). */
  Dataset<Row> files() {
    return snapshot.allFiles().toDF();
  }

  /** How long the table keeps the files its versions removed ({@code delta.deletedFileRetentionDuration}). */
  java.time.Duration fileRetention() {
    return java.time.Duration.ofMillis(DeltaLog.tombstoneRetentionMillis(snapshot.metadata()));
  }

  /** How many versions the log keeps, from the earliest commit file still there to the latest. */
  long versionsKept() {
    long earliest = snapshot.version();
    try {
      for (FileStatus file : fs.listStatus(logFolder)) {
        String name = file.getPath().getName();
        if (COMMIT.matcher(name).matches()) {
          earliest = Math.min(earliest, Long.parseLong(name.substring(0, 20)));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + logFolder, e);
    }
    return snapshot.version() - earliest + 1;
  }

  /** When {@code version} was committed (its commit file's time, as Delta's history reads it); empty once cleaned. */
  Optional<Instant> committedAt(long version) {
    try {
      FileStatus commit = fs.getFileStatus(new Path(logFolder, String.format("%020d.json", version)));
      return Optional.of(Instant.ofEpochMilli(commit.getModificationTime()));
    } catch (FileNotFoundException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + logFolder, e);
    }
  }
}
