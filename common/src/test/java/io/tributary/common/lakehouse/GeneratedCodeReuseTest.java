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

  /**
   * A stream's batch runs a few dozen plans (several streams more); Spark's default cache of 100 compiled plans let
   * each batch evict the classes the next one needed.
   */
  @Test
  void theClassesOfAPlanOutliveAHundredOtherPlans(SparkSession spark) {
    long first = sumOfMultiples(spark, 0);
    long compiledBefore = CodegenMetrics.METRIC_COMPILATION_TIME().getCount();
    for (int factor = 1; factor <= 60; factor++) {
      sumOfMultiples(spark, factor); // each factor is a literal in the generated code: a plan of its own
    }
    long compiledByOthers = CodegenMetrics.METRIC_COMPILATION_TIME().getCount() - compiledBefore;
    long compiledBeforeAgain = CodegenMetrics.METRIC_COMPILATION_TIME().getCount();

    assertEquals(first, sumOfMultiples(spark, 0));
    assertTrue(compiledByOthers > 100, "the other plans compiled more classes than Spark keeps by default: "
        + compiledByOthers);
    assertEquals(0, CodegenMetrics.METRIC_COMPILATION_TIME().getCount() - compiledBeforeAgain,
        "classes compiled again for the first plan");
  }

  private static long sumOfMultiples(SparkSession spark, int factor) {
    return spark.range(100).selectExpr("id * " + factor + " + id AS v").where("v % 3 = 0").agg(
        org.apache.spark.sql.functions.sum("v")).first().getLong(0);
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
