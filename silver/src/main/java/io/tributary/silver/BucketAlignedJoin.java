package io.tributary.silver;

import io.tributary.common.lakehouse.SessionSettings;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;

/**
 * Runs a MERGE with the silver table's buckets as the join's partitions (Spark's storage-partitioned join): each
 * bucket of the table is read by its own task and meets the batch's changes of that bucket, so only the changes are
 * shuffled, never the table. Without it, every MERGE shuffled the whole table for a batch of any size.
 *
 * <p>Within a bucket, a batch whose changes of every bucket fit in 64 MB once shuffled is joined by a hash table of
 * the changes that the table's rows stream past (adaptive execution turns the planned sort-merge join into a shuffled
 * hash join): a batch of 1,000 changes no longer sorts the table's million rows, which was a quarter of its executor
 * time. A larger batch keeps the sort-merge join, whose sort can spill.
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
      "spark.sql.requireAllClusterKeysForCoPartition", "false",
      // Spark's own advisory partition size (64 MB), the least at which it makes the switch.
      "spark.sql.adaptive.maxShuffledHashJoinLocalMapThreshold", "64MB");

  private BucketAlignedJoin() {}

  static <T> T run(SparkSession spark, Callable<T> statement) throws Exception {
    return SessionSettings.with(spark, SETTINGS, statement);
  }
}
