package io.tributary.maintenance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;

/**
 * The files a table's current snapshot references that are not in storage (deleted behind the pipeline's back, a
 * bucket lifecycle rule): read from the metadata and checked one by one, without reading any data. A query or a
 * MERGE on such a table fails naming the first file it meets; this names them all before anything runs.
 */
final class MissingFiles {
  private MissingFiles() {}

  static List<String> ofIceberg(SparkSession spark, String table) {
    Table iceberg;
    try {
      iceberg = Spark3Util.loadIcebergTable(spark, table);
    } catch (Exception e) {
      throw new IllegalStateException("cannot load " + table + ": " + e.getMessage(), e);
    }
    iceberg.refresh();
    if (iceberg.currentSnapshot() == null) {
      return List.of();
    }
    TreeSet<String> missing = new TreeSet<>();
    try (CloseableIterable<FileScanTask> tasks = iceberg.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        check(iceberg, task.file().location(), missing);
        for (DeleteFile delete : task.deletes()) {
          check(iceberg, delete.location(), missing);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the files of " + table, e);
    }
    return List.copyOf(missing);
  }

  private static void check(Table table, String location, TreeSet<String> missing) {
    if (!missing.contains(location) && !table.io().newInputFile(location).exists()) {
      missing.add(location);
    }
  }

  /** The same for a Delta table: the files its log's latest version lists. */
  static List<String> ofDelta(SparkSession spark, String path) {
    Configuration hadoop = spark.sessionState().newHadoopConf();
    List<String> missing = new ArrayList<>();
    for (String file : new TreeSet<>(List.of(spark.read().format("delta").load(path).inputFiles()))) {
      Path location = new Path(file);
      try {
        if (!location.getFileSystem(hadoop).exists(location)) {
          missing.add(file);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot check " + file, e);
      }
    }
    return missing;
  }
}
