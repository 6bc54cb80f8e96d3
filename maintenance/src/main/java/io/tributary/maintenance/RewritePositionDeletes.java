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

  private RewritePositionDeletes(SparkSession spark, Table table) {
    this.spark = spark;
    this.table = table;
  }

  static RewritePositionDeletes of(SparkSession spark, Table table) {
    return new RewritePositionDeletes(spark, table);
  }

  Result execute() {
    var result = SparkActions.get(spark).rewritePositionDeletes(table)
        .option("partial-progress.enabled", "true")
        .option("rewrite-all", "true")
        .execute();
    return new Result(result.rewrittenDeleteFilesCount(), result.addedDeleteFilesCount());
  }
}
