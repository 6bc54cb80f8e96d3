package io.tributary.maintenance;

import io.delta.tables.DeltaTable;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** Delta's compaction: {@code OPTIMIZE}, optionally {@code ZORDER BY} columns. */
final class OptimizeDeltaTable {
  /**
   * @param removedFiles files replaced
   * @param addedFiles files written
   */
  record Result(long removedFiles, long addedFiles) {
    String describe() {
      return removedFiles == 0 ? "nothing to optimize"
          : String.format("%,d files -> %,d files", removedFiles, addedFiles);
    }
  }

  private final SparkSession spark;
  private final String path;
  private List<String> zOrderBy = List.of();

  private OptimizeDeltaTable(SparkSession spark, String path) {
    this.spark = spark;
    this.path = path;
  }

  static OptimizeDeltaTable of(SparkSession spark, String path) {
    return new OptimizeDeltaTable(spark, path);
  }

  OptimizeDeltaTable zOrderBy(List<String> columns) {
    this.zOrderBy = List.copyOf(columns);
    return this;
  }

  Result execute() {
    var optimize = DeltaTable.forPath(spark, path).optimize();
    Row metrics = (zOrderBy.isEmpty() ? optimize.executeCompaction()
        : optimize.executeZOrderBy(zOrderBy.toArray(new String[0]))).first().getStruct(1);
    return new Result(metrics.getLong(metrics.fieldIndex("numFilesRemoved")),
        metrics.getLong(metrics.fieldIndex("numFilesAdded")));
  }
}
