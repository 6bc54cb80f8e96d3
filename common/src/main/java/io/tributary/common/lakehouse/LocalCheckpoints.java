package io.tributary.common.lakehouse;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.LogicalRDD;

/** Locally checkpointed datasets: computed once, kept in the executors' block managers, released when done. */
public final class LocalCheckpoints {
  private LocalCheckpoints() {}

  /** Drops the blocks of a locally checkpointed dataset now rather than when the garbage collector finds them. */
  public static void release(Dataset<Row> checkpointed) {
    if (checkpointed.queryExecution().logical() instanceof LogicalRDD rdd) {
      rdd.rdd().unpersist(false);
    }
  }
}
