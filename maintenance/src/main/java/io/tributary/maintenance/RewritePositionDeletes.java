package io.tributary.maintenance;

import org.apache.iceberg.Table;
import org.apache.iceberg.spark.actions.SparkActions;
import org.apache.spark.sql.SparkSession;

/** Combines an Iceberg table's small position-delete files (merge-on-read MERGE writes some per commit). */
final class RewritePositionDeletes {
  /**
   * @param rewrittenFiles delete files replaced
   * @param addedFiles delete files written
   */
  record Result(int rewrittenFiles, int addedFiles) {
    String describe() {
      return rewrittenFiles == 0 ? "nothing to rewrite"
          : String.format("%,d delete files -> %,d", rewrittenFiles, addedFiles);
    }
  }

  private final SparkSession spark;
  private final Table table;
  private final long minInputFiles;

  private RewritePositionDeletes(SparkSession spark, Table table, long minInputFiles) {
    this.spark = spark;
    this.table = table;
    this.minInputFiles = minInputFiles;
  }

  /** @param minInputFiles a partition's delete files are combined when it has at least this many */
  static RewritePositionDeletes of(SparkSession spark, Table table, long minInputFiles) {
    return new RewritePositionDeletes(spark, table, minInputFiles);
  }

  Result execute() {
    // Not rewrite-all: a partition with one delete file (a bucketed silver table after one MERGE has one per
    // bucket) would be rewritten into one again, a commit each for nothing.
    var result = SparkActions.get(spark).rewritePositionDeletes(table)
        .option("partial-progress.enabled", "true")
        .option("min-input-files", String.valueOf(minInputFiles))
        .execute();
    return new Result(result.rewrittenDeleteFilesCount(), result.addedDeleteFilesCount());
  }
}
