package io.tributary.maintenance;

import io.delta.tables.DeltaTable;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delta's cleanup: {@code VACUUM} deletes files that no version within the retention references. The retention is
 * the longer of the one asked for and the table's {@code delta.deletedFileRetentionDuration} (7 days by default),
 * below which Delta refuses to go.
 */
final class VacuumDeltaTable {
  private static final Logger LOG = LoggerFactory.getLogger(VacuumDeltaTable.class);
  /**
   * Delta 4 ignores VACUUM's {@code RETAIN} argument unless it is 0 and uses the table's retention instead (an
   * internal switch, on by default): without turning it off, a retention kept longer for a stream would be ignored.
   */
  static final String IGNORE_RETAIN = "spark.databricks.delta.vacuum.retentionWindowIgnore.enabled";
  /** VACUUM lists the table's folders in a job of this many tasks, 10,000 by default. */
  static final String LISTING_TASKS = "spark.sql.sources.parallelPartitionDiscovery.parallelism";

  /**
   * @param filesBefore data files on disk before
   * @param filesAfter data files on disk after
   * @param retention files unreferenced for longer than this were deleted
   * @param tableRetention the table's own retention, when it was the longer one
   */
  record Result(long filesBefore, long filesAfter, Duration retention, boolean tableRetention) {
    String describe() {
      return String.format("%,d unreferenced files deleted (retention %d hours%s)", filesBefore - filesAfter,
          retention.toHours(), tableRetention ? ", the table's delta.deletedFileRetentionDuration" : "");
    }
  }

  private final SparkSession spark;
  private final String path;
  private Duration retention = Duration.ofDays(7);

  private VacuumDeltaTable(SparkSession spark, String path) {
    this.spark = spark;
    this.path = path;
  }

  static VacuumDeltaTable of(SparkSession spark, String path) {
    return new VacuumDeltaTable(spark, path);
  }

  VacuumDeltaTable retain(Duration duration) {
    this.retention = duration;
    return this;
  }

  Result execute() {
    Duration table = DeltaLogState.read(spark, path).fileRetention();
    Duration applied = table.compareTo(retention) > 0 ? table : retention;
    long before = parquetFiles();
    vacuumQuietly(applied.toMillis() / 3_600_000.0);
    return new Result(before, parquetFiles(), applied, table.compareTo(retention) > 0);
  }

  /**
   * VACUUM, with what Delta prints to the console ({@code Deleted N files and directories in a total of M
   * directories.}, Scala's println) sent to the log instead: the maintenance report is the command's output, and its
   * result line gives the count.
   */
  private void vacuumQuietly(double retainHours) {
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    try {
      scala.Console.withOut(console, () -> {
        DeltaTable.forPath(vacuumSession(), path).vacuum(retainHours);
        return null;
      });
    } finally {
      console.toString(StandardCharsets.UTF_8).lines().filter(line -> !line.isBlank())
          .forEach(line -> LOG.info("VACUUM {}: {}", path, line));
    }
  }

  /**
   * A session of its own, so that no other query of this session sees the changes: the retention asked for is
   * applied ({@link #IGNORE_RETAIN} off), and unless the user set it, the listing gets two tasks per core. With the
   * default 10,000 tasks that job, not the deletes, is the run on a small cluster (measured: 70 s for a 60-file table
   * on 2 cores, nearly all of it scheduling empty tasks).
   */
  private SparkSession vacuumSession() {
    SparkSession session = spark.newSession();
    session.conf().set(IGNORE_RETAIN, "false");
    if (!spark.conf().contains(LISTING_TASKS)) {
      session.conf().set(LISTING_TASKS, String.valueOf(Math.max(2, 2 * spark.sparkContext().defaultParallelism())));
    }
    return session;
  }

  private long parquetFiles() {
    try {
      org.apache.hadoop.fs.Path root = new org.apache.hadoop.fs.Path(path);
      var fs = root.getFileSystem(spark.sparkContext().hadoopConfiguration());
      var files = fs.listFiles(root, true);
      long count = 0;
      while (files.hasNext()) {
        var file = files.next().getPath();
        if (file.getName().endsWith(".parquet") && !file.toString().contains("/_delta_log/")) {
          count++;
        }
      }
      return count;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("Cannot list " + path, e);
    }
  }
}
