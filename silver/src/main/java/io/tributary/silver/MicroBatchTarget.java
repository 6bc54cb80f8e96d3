package io.tributary.silver;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** What a silver stream applies its batches of bronze rows to: one entity's table, or a database's tables. */
interface MicroBatchTarget {
  /** Applies a batch of bronze rows as batch {@code batchId} of stream {@code streamId}, effectively once. */
  void apply(Dataset<Row> batch, String streamId, long batchId) throws Exception;

  /** Whether batch {@code batchId} of stream {@code streamId} (or a later one) is committed. */
  boolean committed(SparkSession spark, String streamId, long batchId);
}
