package io.tributary.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Which records a bronze batch writes, decided from the table's recorded end and the checkpoint's planned range. */
class BatchPlanTest {
  private static final TopicPartition P0 = new TopicPartition("orders", 0);
  private static final TopicPartition P1 = new TopicPartition("orders", 1);

  @Test
  void firstBatchOfANewTableLoadsItsWholeRange() {
    BatchPlan plan = BatchPlan.of(KafkaOffsets.NONE, offsets(0, 0), offsets(100, 80));
    assertThat(plan.hasNewRange()).isTrue();
    assertThat(plan.dropBelow()).isEmpty();
    assertThat(plan.gaps()).isEmpty();
    assertThat(plan.loadedFrom()).isEqualTo(offsets(0, 0));
    assertThat(plan.loadedAfter()).isEqualTo(offsets(100, 80));
  }

  @Test
  void batchStartingWhereTheTableEndsNeedsNoFilter() {
    BatchPlan plan = BatchPlan.of(offsets(100, 80), offsets(100, 80), offsets(150, 90));
    assertThat(plan.hasNewRange()).isTrue();
    assertThat(plan.dropBelow()).isEmpty();
    assertThat(plan.gaps()).isEmpty();
    assertThat(plan.loadedFrom()).isEqualTo(offsets(100, 80));
    assertThat(plan.loadedAfter()).isEqualTo(offsets(150, 90));
  }

  @Test
  void replayOfACommittedBatchWritesNothing() {
    BatchPlan plan = BatchPlan.of(offsets(150, 90), offsets(100, 80), offsets(150, 90));
    assertThat(plan.hasNewRange()).isFalse();
    assertThat(plan.loadedAfter()).isEqualTo(offsets(150, 90));
  }

  @Test
  void replayOfAnOlderBatchLeavesTheTableEndWhereItIs() {
    BatchPlan plan = BatchPlan.of(offsets(500, 400), offsets(100, 80), offsets(150, 90));
    assertThat(plan.hasNewRange()).isFalse();
    assertThat(plan.loadedAfter()).isEqualTo(offsets(500, 400));
  }

  @Test
  void checkpointBehindItsTableLoadsOnlyWhatTheTableLacks() {
    // The measured loss: batch 1 was committed up to 3,101; its checkpoint files were lost and Spark planned batch 1
    // again up to 8,100. The table sink skipped it by number; the plan drops only what the table holds.
    BatchPlan plan = BatchPlan.of(offsets(3101, 0), offsets(101, 0), offsets(8100, 0));
    assertThat(plan.hasNewRange()).isTrue();
    assertThat(plan.dropBelow()).containsExactly(Map.entry(P0, 3101L));
    assertThat(plan.gaps()).isEmpty();
    assertThat(plan.loadedFrom().offsets()).containsExactly(Map.entry(P0, 3101L));
    assertThat(plan.loadedAfter()).isEqualTo(offsets(8100, 0));
  }

  @Test
  void checkpointAheadOfItsTableLoadsTheGapWithTheBatch() {
    BatchPlan plan = BatchPlan.of(offsets(100, 80), offsets(300, 80), offsets(350, 95));
    assertThat(plan.hasNewRange()).isTrue();
    assertThat(plan.dropBelow()).isEmpty();
    assertThat(plan.gaps()).containsExactly(new LostOffsets.Range("orders", 0, 100, 300));
    assertThat(plan.loadedFrom()).isEqualTo(offsets(100, 80));
    assertThat(plan.loadedAfter()).isEqualTo(offsets(350, 95));
  }

  @Test
  void gapIsLoadedEvenWhenTheBatchItselfAddsNothing() {
    BatchPlan plan = BatchPlan.of(offsets(100, 80), offsets(300, 80), offsets(300, 80));
    assertThat(plan.hasNewRange()).isTrue();
    assertThat(plan.gaps()).containsExactly(new LostOffsets.Range("orders", 0, 100, 300));
  }

  @Test
  void partitionTheTableHasNeverSeenStartsWhereTheStreamStartsIt() {
    KafkaOffsets loaded = new KafkaOffsets(Map.of(P0, 100L));
    BatchPlan plan = BatchPlan.of(loaded, new KafkaOffsets(Map.of(P0, 100L, P1, 40L)), offsets(120, 60));
    assertThat(plan.dropBelow()).isEmpty();
    assertThat(plan.gaps()).isEmpty();
    assertThat(plan.loadedFrom()).isEqualTo(offsets(100, 40));
    assertThat(plan.loadedAfter()).isEqualTo(offsets(120, 60));
  }

  @Test
  void partitionWithoutAPlannedStartIsFilteredByTheTableEnd() {
    // Spark found the partition in this batch (no start in the previous batch's offsets): only the table's end
    // keeps records it holds from landing twice.
    BatchPlan plan = BatchPlan.of(offsets(100, 80), new KafkaOffsets(Map.of(P0, 100L)), offsets(120, 95));
    assertThat(plan.dropBelow()).containsExactly(Map.entry(P1, 80L));
    assertThat(plan.hasNewRange()).isTrue();
  }

  @Test
  void notBelowFilterNamesEveryPartitionAndQuotesTopics() {
    assertThat(BronzeBatchWriter.notBelow(Map.of(new TopicPartition("it's", 2), 7L)))
        .isEqualTo("NOT ((topic = 'it\\'s' AND `partition` = 2 AND `offset` < 7))");
  }

  private static KafkaOffsets offsets(long p0, long p1) {
    return new KafkaOffsets(Map.of(P0, p0, P1, p1));
  }
}
