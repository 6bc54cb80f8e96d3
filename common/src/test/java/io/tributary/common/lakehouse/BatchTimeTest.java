package io.tributary.common.lakehouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tributary.common.testing.SharedSpark;
import java.sql.Timestamp;
import java.time.Instant;
import org.apache.spark.metrics.source.CodegenMetrics;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Each batch's time in its rows, without code compiled for each batch. */
@ExtendWith(SharedSpark.class)
class BatchTimeTest {
  private static final Instant FIRST = Instant.parse("2026-12-06T10:15:30.123Z");
  private static final Instant SECOND = Instant.parse("2026-12-06T10:15:40.456Z");

  @Test
  void everyRowHoldsItsBatchTimeAndALaterBatchCompilesNothing(SparkSession spark) {
    Row first = latestAndCount(spark, BatchTime.of(FIRST));
    long compiledBefore = compiled();
    Row second = latestAndCount(spark, BatchTime.of(SECOND));

    assertEquals(0, compiled() - compiledBefore, "classes compiled again for the second batch");
    assertEquals(Timestamp.from(FIRST), first.getTimestamp(0));
    assertEquals(Timestamp.from(FIRST), first.getTimestamp(1), "the same time in every row");
    assertEquals(1000L, first.getLong(2));
    assertEquals(Timestamp.from(SECOND), second.getTimestamp(0));
    assertEquals(Timestamp.from(SECOND), second.getTimestamp(1));
  }

  /** Why the class exists: with the time as a literal, the same query compiles again for another time. */
  @Test
  void aTimeLiteralCompilesEachBatchAgain(SparkSession spark) {
    latestAndCount(spark, functions.lit(Timestamp.from(FIRST)));
    long compiledBefore = compiled();
    latestAndCount(spark, functions.lit(Timestamp.from(SECOND)));

    assertTrue(compiled() - compiledBefore > 0, "a literal of another time compiled nothing");
  }

  /** The latest and earliest time of a thousand rows through a shuffle, and their number. */
  private static Row latestAndCount(SparkSession spark, Column time) {
    return spark.range(1000).withColumn("t", time).where("id % 2 = 0 OR id % 2 = 1").repartition(3)
        .agg(functions.max("t"), functions.min("t"), functions.count("*")).first();
  }

  private static long compiled() {
    return CodegenMetrics.METRIC_COMPILATION_TIME().getCount();
  }
}
