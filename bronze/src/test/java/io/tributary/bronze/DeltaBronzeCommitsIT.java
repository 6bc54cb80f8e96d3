package io.tributary.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.bronze.BronzeCommits.TableEnd;
import io.tributary.common.testing.SharedSpark;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conditional commit of a Delta bronze table: a batch planned on one table version lands only if no other bronze
 * commit landed since, and maintenance in between does not stop it.
 */
@ExtendWith(SharedSpark.class)
class DeltaBronzeCommitsIT {
  private static final TopicPartition PARTITION = new TopicPartition("orders", 0);

  @Test
  void secondWriterPlannedOnTheSameVersionIsRefusedAndLoadsNothing(SparkSession spark, @TempDir Path dir) {
    DeltaBronzeCommits commits = new DeltaBronzeCommits(spark, dir.resolve("orders").toString());
    assertThat(commits.appendIfUnchangedSince(commits.end(), rows(spark, 0, 10), summary(0, 10))).isTrue();

    TableEnd planned = commits.end();
    assertThat(planned.offsets().offsets()).containsEntry(PARTITION, 10L);
    assertThat(commits.appendIfUnchangedSince(planned, rows(spark, 10, 20), summary(10, 20))).isTrue();
    // A second process planned the same range on the same version: Delta refuses its commit.
    assertThat(commits.appendIfUnchangedSince(planned, rows(spark, 10, 20), summary(10, 20))).isFalse();

    assertThat(offsets(spark, dir)).hasSize(20).doesNotHaveDuplicates();
    assertThat(commits.end().offsets().offsets()).containsEntry(PARTITION, 20L);
  }

  /** Opened by the slow batch's task once it is computing; the other writer commits, then opens the second. */
  private static final java.util.concurrent.CountDownLatch COMPUTING = new java.util.concurrent.CountDownLatch(1);
  private static final java.util.concurrent.CountDownLatch OTHER_COMMITTED = new java.util.concurrent.CountDownLatch(1);

  @Test
  void writerWhoseTransactionOverlapsAnotherBronzeCommitIsRefused(SparkSession spark, @TempDir Path dir)
      throws Exception {
    DeltaBronzeCommits commits = new DeltaBronzeCommits(spark, dir.resolve("orders").toString());
    commits.appendIfUnchangedSince(commits.end(), rows(spark, 0, 10), summary(0, 10));
    TableEnd planned = commits.end();
    // The other writer commits while this writer's transaction is open, computing its rows.
    Dataset<Row> slow = rows(spark, 10, 20).filter((org.apache.spark.api.java.function.FilterFunction<Row>) row -> {
      if (row.getLong(0) == 10) {
        COMPUTING.countDown();
        OTHER_COMMITTED.await();
      }
      return true;
    });
    java.util.concurrent.CompletableFuture<Boolean> other = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
      try {
        COMPUTING.await();
        return new DeltaBronzeCommits(spark, dir.resolve("orders").toString())
            .appendIfUnchangedSince(planned, rows(spark, 10, 20), summary(10, 20));
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      } finally {
        OTHER_COMMITTED.countDown();
      }
    });

    assertThat(commits.appendIfUnchangedSince(planned, slow, summary(10, 20))).isFalse();
    assertThat(other.get()).isTrue();
    assertThat(offsets(spark, dir)).hasSize(20).doesNotHaveDuplicates();
  }

  @Test
  void compactionBetweenPlanAndCommitDoesNotRefuseTheBatch(SparkSession spark, @TempDir Path dir) {
    DeltaBronzeCommits commits = new DeltaBronzeCommits(spark, dir.resolve("orders").toString());
    commits.appendIfUnchangedSince(commits.end(), rows(spark, 0, 5), summary(0, 5));
    commits.appendIfUnchangedSince(commits.end(), rows(spark, 5, 10), summary(5, 10));
    TableEnd planned = commits.end();
    spark.sql("OPTIMIZE delta.`" + dir.resolve("orders") + "`").collect();

    assertThat(commits.appendIfUnchangedSince(planned, rows(spark, 10, 20), summary(10, 20))).isTrue();
    assertThat(offsets(spark, dir)).hasSize(20).doesNotHaveDuplicates();
    assertThat(commits.end().offsets().offsets()).containsEntry(PARTITION, 20L);
  }

  private static Dataset<Row> rows(SparkSession spark, long from, long to) {
    return spark.range(from, to).toDF("offset").repartition(2);
  }

  private static Map<String, String> summary(long from, long to) {
    return Map.of(BronzeCommits.END_OFFSETS, new KafkaOffsets(Map.of(PARTITION, to)).json(),
        BronzeCommits.START_OFFSETS, new KafkaOffsets(Map.of(PARTITION, from)).json(), BronzeCommits.BATCH, "test/0");
  }

  private static List<Long> offsets(SparkSession spark, Path dir) {
    return spark.read().format("delta").load(dir.resolve("orders").toString()).as(
        org.apache.spark.sql.Encoders.LONG()).collectAsList();
  }
}
