package io.tributary.silver;

import io.tributary.common.lakehouse.SessionSettings;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;

/**
 * Runs a MERGE with the silver table's buckets as the join's partitions (Spark's storage-partitioned join): each
 * bucket of the table is read by its own task and meets the batch's changes of that bucket, so only the changes are
 * shuffled, never the table. Without it, every MERGE shuffled the whole table for a batch of any size. The join
 * within a bucket is still Spark's choice (a sort-merge join sorts the bucket's rows; a hash join built on the
 * batch measured no faster).
 *
 * <p>The settings hold for the one statement and are put back afterwards, so the stream's other queries (decode,
 * quarantine, history) plan as before. A table whose files do not all share one bucketing (its partitioning changed)
 * reports no grouping, and Spark shuffles both sides as before.
 */
final class BucketAlignedJoin {
  private static final Map<String, String> SETTINGS = Map.of(
      // Iceberg reports the scan's grouping by partition (bucket) only when asked.
      "spark.sql.iceberg.planning.preserve-data-grouping", "true",
      "spark.sql.sources.v2.bucketing.enabled", "true",
      // Buckets the batch has and the table lacks (or the reverse) become empty partitions instead of a shuffle.
      "spark.sql.sources.v2.bucketing.pushPartValues.enabled", "true",
      // The batch (a plain dataset) is shuffled into the table's buckets with Iceberg's own bucket function.
      "spark.sql.sources.v2.bucketing.shuffle.enabled", "true",
      // A key of several columns joins on all of them, and the table is bucketed by the first.
      "spark.sql.requireAllClusterKeysForCoPartition", "false");

  private BucketAlignedJoin() {}

  static <T> T run(SparkSession spark, Callable<T> statement) throws Exception {
    return SessionSettings.with(spark, SETTINGS, statement);
  }
}
