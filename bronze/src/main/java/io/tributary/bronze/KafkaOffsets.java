package io.tributary.bronze;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * An offset per Kafka partition, in the JSON form Spark's Kafka source uses in its checkpoint and options
 * ({@code {"orders":{"0":100,"1":250}}}). Bronze keeps the end offsets it has loaded (exclusive) in this form in its
 * table's commits; a checkpoint holds the start and end of each planned batch in it.
 */
record KafkaOffsets(Map<TopicPartition, Long> offsets) {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final Comparator<TopicPartition> ORDER =
      Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

  static final KafkaOffsets NONE = new KafkaOffsets(Map.of());

  KafkaOffsets {
    TreeMap<TopicPartition, Long> sorted = new TreeMap<>(ORDER);
    sorted.putAll(offsets);
    offsets = Collections.unmodifiableMap(sorted);
  }

  /** Parses Spark's JSON; a value that is not such an object is an {@link IllegalArgumentException}. */
  static KafkaOffsets parse(String json) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("not JSON: " + json, e);
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("not a JSON object of offsets per topic: " + json);
    }
    Map<TopicPartition, Long> offsets = new TreeMap<>(ORDER);
    for (Iterator<Map.Entry<String, JsonNode>> topics = root.fields(); topics.hasNext(); ) {
      Map.Entry<String, JsonNode> topic = topics.next();
      if (!topic.getValue().isObject()) {
        throw new IllegalArgumentException("topic " + topic.getKey() + " does not map partitions to offsets: " + json);
      }
      for (Iterator<Map.Entry<String, JsonNode>> partitions = topic.getValue().fields(); partitions.hasNext(); ) {
        Map.Entry<String, JsonNode> partition = partitions.next();
        if (!partition.getValue().canConvertToLong() || !partition.getValue().isIntegralNumber()) {
          throw new IllegalArgumentException("offset of " + topic.getKey() + " partition " + partition.getKey()
              + " is not a number: " + json);
        }
        int number;
        try {
          number = Integer.parseInt(partition.getKey());
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("partition " + partition.getKey() + " of " + topic.getKey()
              + " is not a number: " + json, e);
        }
        offsets.put(new TopicPartition(topic.getKey(), number), partition.getValue().asLong());
      }
    }
    return new KafkaOffsets(offsets);
  }

  String json() {
    ObjectNode root = JSON.createObjectNode();
    offsets.forEach((partition, offset) -> {
      ObjectNode topic = root.has(partition.topic()) ? (ObjectNode) root.get(partition.topic())
          : root.putObject(partition.topic());
      topic.put(String.valueOf(partition.partition()), offset);
    });
    try {
      return JSON.writeValueAsString(root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  boolean isEmpty() {
    return offsets.isEmpty();
  }

  /** These offsets, with {@code later}'s where they are higher or new. */
  KafkaOffsets advancedTo(KafkaOffsets later) {
    Map<TopicPartition, Long> merged = new TreeMap<>(ORDER);
    merged.putAll(offsets);
    later.offsets.forEach((partition, offset) -> merged.merge(partition, offset, Math::max));
    return new KafkaOffsets(merged);
  }

  /** These offsets, with {@code other}'s wherever it has one. */
  KafkaOffsets overriddenBy(KafkaOffsets other) {
    Map<TopicPartition, Long> merged = new TreeMap<>(ORDER);
    merged.putAll(offsets);
    merged.putAll(other.offsets);
    return new KafkaOffsets(merged);
  }

  @Override
  public String toString() {
    return json();
  }
}
