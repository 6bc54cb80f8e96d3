package io.tributary.silver;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.lakehouse.LocalCheckpoints;
import io.tributary.common.testing.SharedSpark;
import java.sql.Timestamp;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A decoded batch is kept and summarized in one Spark job ({@link BatchSummary#keep}): the counts, the fields the
 * schema does not know, the truncates and the key span come from the rows as they are kept, and the kept rows are
 * the batch's.
 */
@ExtendWith(SharedSpark.class)
class BatchSummaryIT {
  private static final StructType DECODED = StructType.fromDDL("topic STRING, partition INT, offset BIGINT,"
      + " kafka_timestamp TIMESTAMP, op STRING, seq ARRAY<BIGINT>, ts_ms BIGINT, row STRUCT<id: BIGINT, v: STRING>,"
      + " unknown_fields ARRAY<STRING>, widen ARRAY<STRING>, tombstone BOOLEAN, error STRING");

  @Test
  void aBatchIsKeptAndSummarizedInOneJob(SparkSession spark) throws Exception {
    Timestamp at = Timestamp.valueOf("2026-12-07 10:00:00");
    Dataset<Row> decoded = spark.createDataFrame(List.of(
        decoded(0, "c", 1, RowFactory.create(5L, "a"), List.of(), false, null),
        decoded(1, "u", 2, RowFactory.create(9L, "b"), List.of(), false, null),
        decoded(2, null, 3, null, List.of(), false, "not JSON"),
        decoded(3, null, 4, null, List.of(), true, null),
        decoded(4, "t", 7, null, List.of(), false, null),
        decoded(5, "c", 8, RowFactory.create(2L, "c"), List.of("extra", "more"), false, null),
        decoded(6, "u", 9, RowFactory.create(7L, "d"), List.of("extra"), false, null)), DECODED)
        .withColumn("kafka_timestamp", org.apache.spark.sql.functions.lit(at));
    AtomicInteger jobs = new AtomicInteger();
    SparkListener counter = new SparkListener() {
      @Override
      public void onJobStart(SparkListenerJobStart jobStart) {
        jobs.incrementAndGet();
      }
    };
    spark.sparkContext().addSparkListener(counter);
    BatchSummary.Kept kept;
    try {
      kept = BatchSummary.keep(decoded, "id");
      spark.sparkContext().listenerBus().waitUntilEmpty(10_000);
    } finally {
      spark.sparkContext().removeSparkListener(counter);
    }
    try {
      assertThat(jobs.get()).as("Spark jobs to keep and summarize the batch").isEqualTo(1);
      BatchSummary summary = kept.summary();
      assertThat(List.of(summary.records(), summary.rejected(), summary.changes(), summary.tombstones()))
          .as("records, rejected, changes, tombstones").containsExactly(7L, 1L, 4L, 1L);
      assertThat(summary.unknownFields()).containsExactly("extra", "more");
      assertThat(summary.widen()).isEmpty();
      assertThat(summary.needsSchemaChange()).isTrue();
      assertThat(summary.truncates()).hasSize(1);
      assertThat(summary.truncates().get(0).offset()).isEqualTo(4);
      assertThat(summary.truncates().get(0).tsMs()).as("a truncate without ts_ms: its Kafka time")
          .isEqualTo(at.getTime());
      assertThat(summary.keySpan().toString()).as("lowest and highest key of the changes").isEqualTo("[2,9]");
      assertThat(kept.rows().where("error IS NULL AND NOT tombstone AND op <> 't'").count()).isEqualTo(4);
      assertThat(kept.rows().count()).isEqualTo(7);
    } finally {
      LocalCheckpoints.release(kept.rows());
    }
  }

  private static Row decoded(long offset, String op, long seq, Row row, List<String> unknown, boolean tombstone,
      String error) {
    return RowFactory.create("t", 0, offset, null, op, List.of(seq), null, row, unknown, List.of(), tombstone, error);
  }
}
