package io.tributary.maintenance;

import java.util.List;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.spark.actions.SparkActions;
import org.apache.spark.sql.SparkSession;

/**
 * Compacts an Iceberg table's small data files (and files with many deleted rows) into files of the target size,
 * committing every few file groups (partial progress), so that a commit conflict with a stream loses little work. A
 * group whose new files cannot be written (a full disk, a missing input file) fails the operation with the cause,
 * where Iceberg's partial progress would only log it and report the group as not rewritten.
 */
final class RewriteDataFiles {
  /**
   * @param rewrittenFiles data files replaced
   * @param addedFiles data files written
   * @param rewrittenBytes bytes read and rewritten
   */
  record Result(int rewrittenFiles, int addedFiles, long rewrittenBytes) {
    String describe() {
      return rewrittenFiles == 0 ? "nothing to rewrite" : String.format("%,d files -> %,d files (%s rewritten)",
          rewrittenFiles, addedFiles, TableHealth.bytes(rewrittenBytes));
    }
  }

  private final SparkSession spark;
  private final Table table;
  private long targetFileSize = 128L << 20;
  private long minInputFiles = 5;
  private List<String> sortBy = List.of();
  private Expression filter = Expressions.alwaysTrue();

  private RewriteDataFiles(SparkSession spark, Table table) {
    this.spark = spark;
    this.table = table;
  }

  static RewriteDataFiles of(SparkSession spark, Table table) {
    return new RewriteDataFiles(spark, table);
  }

  RewriteDataFiles targetFileSize(long bytes) {
    this.targetFileSize = bytes;
    return this;
  }

  RewriteDataFiles minInputFiles(long files) {
    this.minInputFiles = files;
    return this;
  }

  /** Rewrite rows sorted by these columns; none means bin-packing in the rows' order. */
  RewriteDataFiles sortBy(List<String> columns) {
    this.sortBy = List.copyOf(columns);
    return this;
  }

  /** Only files whose rows may match (e.g. the partitions that are quiet). */
  RewriteDataFiles filter(Expression expression) {
    this.filter = expression;
    return this;
  }

  Result execute() {
    var action = SparkActions.get(spark).rewriteDataFiles(table)
        .filter(filter)
        .option("target-file-size-bytes", String.valueOf(targetFileSize))
        .option("min-input-files", String.valueOf(minInputFiles))
        .option("partial-progress.enabled", "true")
        .option("partial-progress.max-commits", "10")
        // Position deletes that only referenced rewritten files go with them.
        .option("remove-dangling-deletes", "true");
    if (sortBy.isEmpty()) {
      action.binPack();
    } else {
      SortOrder.Builder order = SortOrder.builderFor(table.schema());
      sortBy.forEach(column -> order.asc(column, NullOrder.NULLS_FIRST));
      action.sort(order.build());
    }
    try (JobFailures jobs = JobFailures.watch(spark)) {
      org.apache.iceberg.actions.RewriteDataFiles.Result result = action.execute();
      if (result.failedDataFilesCount() > 0) {
        // Not a commit conflict (those leave groups uncommitted, not failed): writing a group's files failed.
        java.util.Optional<Exception> cause = jobs.first(); // waits for the listener: asked once
        throw new IllegalStateException("rewrite-data-files of " + table.name() + ": "
            + result.rewriteFailures().size() + " file group(s) of " + result.failedDataFilesCount() + " data files"
            + " could not be rewritten and were left as they were" + cause.map(failure -> " ("
            + String.valueOf(failure.getMessage()).lines().findFirst().orElse("") + ")").orElse(""),
            cause.orElse(null));
      }
      return new Result(result.rewrittenDataFilesCount(), result.addedDataFilesCount(),
          result.rewrittenBytesCount());
    }
  }
}
