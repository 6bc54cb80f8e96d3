package io.tributary.bronze;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * What one bronze micro-batch must write, decided from the table rather than from the checkpoint alone: the table's
 * commits record the end offsets bronze has loaded ({@code loaded}); Spark's checkpoint plans the batch from
 * {@code start} to {@code end}. Where the batch starts before the table's end (a checkpoint behind its table: restored
 * from a backup, its last batch files lost or removed, or a batch replayed after a crash) the records already loaded
 * are dropped; where it starts after the table's end (a checkpoint ahead of its table: the table rolled back or
 * recreated) the records in between are a gap that must be loaded with the batch. Nothing is skipped either way.
 *
 * @param dropBelow per partition, the offset below which the batch's records are in the table already
 * @param gaps the ranges between the table's end and the batch's start, which the batch must load too
 * @param loadedFrom per partition the batch adds records to, the offset its records start at (where known)
 * @param loadedAfter the end offsets the table records once the batch is committed
 * @param hasNewRange whether the batch reaches past what the table holds (otherwise it writes nothing)
 */
record BatchPlan(Map<TopicPartition, Long> dropBelow, List<LostOffsets.Range> gaps, KafkaOffsets loadedFrom,
    KafkaOffsets loadedAfter, boolean hasNewRange) {

  /**
   * @param loaded the end offsets (exclusive) the table's last bronze commit records; empty for a new table
   * @param start where the checkpoint starts the batch (the previous batch's end, or the stream's initial offsets)
   * @param end where the checkpoint ends the batch (exclusive)
   */
  static BatchPlan of(KafkaOffsets loaded, KafkaOffsets start, KafkaOffsets end) {
    Map<TopicPartition, Long> dropBelow = new TreeMap<>(KafkaOffsets.ORDER);
    List<LostOffsets.Range> gaps = new ArrayList<>();
    Map<TopicPartition, Long> loadedFrom = new TreeMap<>(KafkaOffsets.ORDER);
    boolean hasNewRange = false;
    for (Map.Entry<TopicPartition, Long> planned : end.offsets().entrySet()) {
      TopicPartition partition = planned.getKey();
      Long tableEnd = loaded.offsets().get(partition);
      Long batchStart = start.offsets().get(partition);
      if (tableEnd == null) {
        // A partition the table has never loaded: the stream's own start (its starting offsets, or the earliest
        // offset of a partition found later) is where bronze begins it.
        hasNewRange |= batchStart == null || planned.getValue() > batchStart;
        if (batchStart != null && planned.getValue() > batchStart) {
          loadedFrom.put(partition, batchStart);
        }
        continue;
      }
      if (batchStart == null || batchStart < tableEnd) {
        // Unknown start (a partition Spark found in this batch): the filter is what keeps a record from landing twice.
        dropBelow.put(partition, tableEnd);
      } else if (batchStart > tableEnd) {
        gaps.add(new LostOffsets.Range(partition.topic(), partition.partition(), tableEnd, batchStart));
      }
      if (planned.getValue() > tableEnd || batchStart != null && batchStart > tableEnd) {
        hasNewRange = true;
        loadedFrom.put(partition, tableEnd);
      }
    }
    return new BatchPlan(java.util.Collections.unmodifiableMap(dropBelow), List.copyOf(gaps),
        new KafkaOffsets(loadedFrom), loaded.advancedTo(end), hasNewRange);
  }
}
