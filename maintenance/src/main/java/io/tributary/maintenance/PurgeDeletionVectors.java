package io.tributary.maintenance;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Delta's {@code REORG TABLE ... APPLY (PURGE)}: rewrites the data files that carry a deletion vector without the rows
 * it deletes. A silver MERGE leaves a deletion vector on every file it changes a row of; each one is read and applied
 * by every query until the file is rewritten (OPTIMIZE rewrites only small files and heavily deleted ones).
 */
final class PurgeDeletionVectors {
  /**
   * @param rewritten files rewritten (those with a deletion vector)
   * @param written files written in their place
   */
  record Result(long rewritten, long written) {
    String describe() {
      return rewritten == 0 ? "no deletion vectors"
          : String.format("%,d files with deletion vectors -> %,d files", rewritten, written);
    }
  }

  private final SparkSession spark;
  private final String path;

  private PurgeDeletionVectors(SparkSession spark, String path) {
    this.spark = spark;
    this.path = path;
  }

  static PurgeDeletionVectors of(SparkSession spark, String path) {
    return new PurgeDeletionVectors(spark, path);
  }

  Result execute() {
    Row metrics = spark.sql("REORG TABLE delta.`" + path.replace("`", "``") + "` APPLY (PURGE)").first()
        .getStruct(1);
    return new Result(metrics.getLong(metrics.fieldIndex("numFilesRemoved")),
        metrics.getLong(metrics.fieldIndex("numFilesAdded")));
  }
}
