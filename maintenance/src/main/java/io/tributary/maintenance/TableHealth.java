package io.tributary.maintenance;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.count_if;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import io.tributary.common.config.TableFormat;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * How healthy a table's files are: what a query pays to plan and read it.
 *
 * @param table the table's SQL name
 * @param format its table format
 * @param snapshots snapshots kept (Iceberg) or versions kept in the log (Delta)
 * @param dataFiles data files of the current snapshot
 * @param dataBytes their total size
 * @param smallFiles data files smaller than 75% of the target size that share their partition with another file
 *     (what compaction combines)
 * @param deleteFiles delete files of the current snapshot (Iceberg merge-on-read), or data files with a deletion
 *     vector (Delta)
 * @param deleteBytes their total size (of the deletion vectors, for Delta)
 * @param missingFiles files the current snapshot references that are not in storage (the table is damaged)
 */
public record TableHealth(String table, TableFormat format, long snapshots, long dataFiles, long dataBytes, long smallFiles,
    long deleteFiles, long deleteBytes, List<String> missingFiles) {

  /** The health of an Iceberg table; files below 75% of {@code targetFileSize} count as small. */
  public static TableHealth ofIceberg(SparkSession spark, String table, long targetFileSize) {
    // A small file counts only when its partition has another file to combine it with.
    String partition = java.util.Arrays.asList(spark.table(table + ".files").columns()).contains("partition")
        ? "spec_id, partition" : "spec_id";
    Row files = spark.sql("SELECT count_if(content = 0), coalesce(sum(CASE WHEN content = 0 THEN file_size_in_bytes"
        + " END), 0), count_if(content = 0 AND file_size_in_bytes < " + smallBelow(targetFileSize)
        + " AND partition_files > 1), count_if(content <> 0), coalesce(sum(CASE WHEN content <> 0 THEN"
        + " file_size_in_bytes END), 0) FROM (SELECT *, count_if(content = 0) OVER (PARTITION BY " + partition
        + ") AS partition_files FROM " + table + ".files)").first();
    long snapshots = spark.sql("SELECT count(*) FROM " + table + ".snapshots").first().getLong(0);
    return new TableHealth(table, TableFormat.ICEBERG, snapshots, files.getLong(0), files.getLong(1), files.getLong(2), files.getLong(3),
        files.getLong(4), MissingFiles.ofIceberg(spark, table));
  }

  /**
   * The health of a Delta table, from its log alone (the files of the latest version, their deletion vectors, the
   * versions the log keeps): no data file is read.
   */
  static TableHealth ofDelta(SparkSession spark, String table, String path, long targetFileSize) {
    DeltaLogState log = DeltaLogState.read(spark, path);
    List<String> missing = MissingFiles.ofDelta(spark, path);
    Row files = log.files().agg(count(lit(1)), coalesce(sum(col("size")), lit(0L)),
        when(count(lit(1)).gt(1), count_if(col("size").lt(smallBelow(targetFileSize)))).otherwise(0L),
        count_if(col("deletionVector").isNotNull()),
        coalesce(sum(col("deletionVector.sizeInBytes")), lit(0L))).first();
    return new TableHealth(table, TableFormat.DELTA, log.versionsKept(), files.getLong(0), files.getLong(1),
        files.getLong(2), files.getLong(3), files.getLong(4), missing);
  }

  private static long smallBelow(long targetFileSize) {
    return targetFileSize * 3 / 4;
  }

  /** The average data file size, in bytes. */
  public long averageFileSize() {
    return dataFiles == 0 ? 0 : dataBytes / dataFiles;
  }

  /** The share of small data files, 0 to 1. */
  public double smallFileRatio() {
    return dataFiles == 0 ? 0 : (double) smallFiles / dataFiles;
  }

  /** Whether files the current snapshot references are missing from storage. */
  public boolean isDamaged() {
    return !missingFiles.isEmpty();
  }

  /**
   * One line, e.g. {@code 12 snapshots, 340 data files (avg 1.2 MiB, 98% small), 3 delete files, 410.2 MiB}, or for
   * Delta {@code 40 versions, 12 data files (avg 8.1 MiB, 0% small), 3 with deletion vectors, 97.4 MiB}.
   */
  public String describe() {
    if (isDamaged()) {
      return String.format("DAMAGED: %,d file%s that the current snapshot references %s missing (%s%s)",
          missingFiles.size(), missingFiles.size() == 1 ? "" : "s", missingFiles.size() == 1 ? "is" : "are",
          missingFiles.get(0), missingFiles.size() > 1 ? ", ..." : "");
    }
    return format == TableFormat.DELTA
        ? String.format("%,d versions, %,d data files (avg %s, %.0f%% small), %,d with deletion vectors, %s", snapshots,
            dataFiles, bytes(averageFileSize()), smallFileRatio() * 100, deleteFiles, bytes(dataBytes + deleteBytes))
        : String.format("%,d snapshots, %,d data files (avg %s, %.0f%% small), %,d delete files, %s", snapshots,
            dataFiles, bytes(averageFileSize()), smallFileRatio() * 100, deleteFiles, bytes(dataBytes + deleteBytes));
  }

  static String bytes(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double value = bytes;
    int unit = -1;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format("%.1f %s", value, units[unit]);
  }
}
