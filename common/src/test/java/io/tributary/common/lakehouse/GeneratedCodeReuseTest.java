package io.tributary.common.lakehouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tributary.common.testing.SharedSpark;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.metrics.source.CodegenMetrics;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streaming query that runs the same plan as an earlier one reuses the classes Spark generated for it: every
 * {@code --once} run and every table session of a database stream is a new query in a cloned session, and with
 * Spark's session artifact isolation each of them compiled all its generated code again.
 */
@ExtendWith(SharedSpark.class)
class GeneratedCodeReuseTest {

  @Test
  void aSecondQueryOverTheSamePlanCompilesNothingNew(SparkSession spark, @TempDir Path dir) throws Exception {
    List<Long> sums = new ArrayList<>();
    runOnce(spark, dir.resolve("first"), sums);
    long compiledBefore = CodegenMetrics.METRIC_COMPILATION_TIME().getCount();
    runOnce(spark, dir.resolve("second"), sums);
    long compiledBySecond = CodegenMetrics.METRIC_COMPILATION_TIME().getCount() - compiledBefore;

    assertEquals(List.of(sum(1000), sum(1000)), sums, "both queries saw every row");
    assertTrue(compiledBefore > 0, "the first query generated and compiled code");
    assertEquals(0, compiledBySecond, "classes compiled again by the second query");
  }

  /** A query with a shuffle, an aggregation and a projection: code generated on the driver and in the tasks. */
  private static void runOnce(SparkSession spark, Path checkpoint, List<Long> sums) throws Exception {
    spark.range(1000).selectExpr("id", "id % 7 AS bucket").write().mode("overwrite")
        .parquet(checkpoint.resolve("in").toString());
    VoidFunction2<Dataset<Row>, Long> batch = (rows, id) -> sums.add(rows.groupBy("bucket")
        .agg(org.apache.spark.sql.functions.sum("id").as("total"))
        .selectExpr("sum(total * 2) / 2").as(org.apache.spark.sql.Encoders.DOUBLE()).first().longValue());
    spark.readStream().schema("id BIGINT, bucket BIGINT").parquet(checkpoint.resolve("in").toString())
        .writeStream().foreachBatch(batch).trigger(Trigger.AvailableNow())
        .option("checkpointLocation", checkpoint.resolve("checkpoint").toString())
        .start().awaitTermination();
  }

  private static long sum(long n) {
    return n * (n - 1) / 2;
  }
}
