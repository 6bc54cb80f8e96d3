package io.tributary.maintenance;

import io.delta.tables.DeltaTable;
import java.time.Duration;
import org.apache.spark.sql.SparkSession;

/**
 * Delta's cleanup: {@code VACUUM} deletes files that no version within the retention references. Delta refuses a
 * retention below the table's {@code delta.deletedFileRetentionDuration} (7 days by default); so does this.
 */
final class VacuumDeltaTable {
  /**
   * @param filesBefore data files on disk before
   * @param filesAfter data files on disk after
   * @param retention files unreferenced for longer than this were deleted
   */
  record Result(long filesBefore, long filesAfter, Duration retention) {
    String describe() {
      return String.format("%,d unreferenced files deleted (retention %d hours)", filesBefore - filesAfter,
          retention.toHours());
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
    long before = parquetFiles();
    DeltaTable.forPath(listingSession(), path).vacuum(retention.toMinutes() / 60.0);
    return new Result(before, parquetFiles(), retention);
  }

  /**
   * VACUUM lists the table's folders in a job of {@code spark.sql.sources.parallelPartitionDiscovery.parallelism}
   * tasks, 10,000 by default: on a small cluster that job, not the deletes, is the run (measured: 70 s for a
   * 60-file table on 2 cores, nearly all of it scheduling empty tasks). Unless the user set it, the listing gets
   * two tasks per core, in a session of its own so that no other query of this session sees the change.
   */
  private SparkSession listingSession() {
    String key = "spark.sql.sources.parallelPartitionDiscovery.parallelism";
    if (spark.conf().contains(key)) {
      return spark;
    }
    SparkSession session = spark.newSession();
    session.conf().set(key, String.valueOf(Math.max(2, 2 * spark.sparkContext().defaultParallelism())));
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
