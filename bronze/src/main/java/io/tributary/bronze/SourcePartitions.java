package io.tributary.bronze;

import io.tributary.common.config.BronzeSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** The Kafka side of a bronze source outside its stream: a plain consumer, and the partitions it subscribes to. */
final class SourcePartitions {
  private SourcePartitions() {}

  /** A consumer for offset lookups and metadata; it never commits offsets. */
  static KafkaConsumer<byte[], byte[]> consumer(Map<String, Object> kafkaClient) {
    Map<String, Object> properties = new HashMap<>(kafkaClient);
    properties.put("enable.auto.commit", "false");
    return new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /** The partitions of the source's topics (or of the topics its pattern matches) among {@code topics}. */
  static List<TopicPartition> of(BronzeSource source, Map<String, List<PartitionInfo>> topics) {
    List<TopicPartition> partitions = new ArrayList<>();
    topics.forEach((topic, infos) -> {
      if (source.pattern() != null ? topic.matches(source.pattern()) : source.topics().contains(topic)) {
        infos.forEach(info -> partitions.add(new TopicPartition(topic, info.partition())));
      }
    });
    return partitions;
  }
}
