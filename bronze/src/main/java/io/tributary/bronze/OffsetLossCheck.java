package io.tributary.bronze;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Compares where a bronze stream will resume with the earliest offsets Kafka still has, before the stream starts.
 * Spark's own check only says that "some data may have been lost"; this one names the ranges.
 */
final class OffsetLossCheck {
  private final Map<String, Object> kafkaClient;

  OffsetLossCheck(Map<String, Object> kafkaClient) {
    this.kafkaClient = kafkaClient;
  }

  /** The records Kafka has deleted of those the stream still needs from {@code resumeAt} on. */
  LostOffsets check(String sourceName, String table, KafkaOffsets resumeAt) {
    List<LostOffsets.Range> lost = new ArrayList<>();
    if (!resumeAt.isEmpty()) {
      Map<TopicPartition, Long> earliest = earliestOffsets(resumeAt.offsets().keySet());
      resumeAt.offsets().forEach((partition, next) -> {
        Long first = earliest.get(partition);
        if (first != null && first > next) {
          lost.add(new LostOffsets.Range(partition.topic(), partition.partition(), next, first));
        }
      });
    }
    return new LostOffsets(sourceName, table, lost);
  }

  private Map<TopicPartition, Long> earliestOffsets(Collection<TopicPartition> partitions) {
    try (KafkaConsumer<byte[], byte[]> consumer = SourcePartitions.consumer(kafkaClient)) {
      return consumer.beginningOffsets(partitions, Duration.ofSeconds(60));
    }
  }
}
