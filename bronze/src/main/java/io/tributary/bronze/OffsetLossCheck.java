package io.tributary.bronze;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tributary.common.lakehouse.CheckpointLogs;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Compares where a bronze stream will resume (its checkpoint) with the earliest offsets Kafka still has, before the
 * stream starts. Spark's own check only says that "some data may have been lost"; this one names the ranges.
 */
final class OffsetLossCheck {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, Object> kafkaClient;
  private final Configuration hadoop;

  OffsetLossCheck(Map<String, Object> kafkaClient, Configuration hadoop) {
    this.kafkaClient = kafkaClient;
    this.hadoop = hadoop;
  }

  LostOffsets check(String sourceName, String table, String checkpoint) {
    Map<TopicPartition, Long> resumeAt = resumeOffsets(checkpoint);
    List<LostOffsets.Range> lost = new ArrayList<>();
    if (!resumeAt.isEmpty()) {
      Map<TopicPartition, Long> earliest = earliestOffsets(resumeAt.keySet());
      resumeAt.forEach((partition, next) -> {
        Long first = earliest.get(partition);
        if (first != null && first > next) {
          lost.add(new LostOffsets.Range(partition.topic(), partition.partition(), next, first));
        }
      });
    }
    lost.sort(java.util.Comparator.comparing(LostOffsets.Range::topic).thenComparing(LostOffsets.Range::partition));
    return new LostOffsets(sourceName, table, lost);
  }

  /**
   * The offsets the next batch starts from: the end offsets of the last committed batch. An uncommitted batch after
   * it is re-run from the same place, so it does not move the start.
   */
  Map<TopicPartition, Long> resumeOffsets(String checkpoint) {
    try {
      Path root = new Path(checkpoint);
      FileSystem fs = root.getFileSystem(hadoop);
      OptionalLong lastCommitted = CheckpointLogs.lastBatchNumber(fs, new Path(root, "commits"));
      if (lastCommitted.isEmpty()) {
        return Map.of();
      }
      Path offsets = new Path(new Path(root, "offsets"), String.valueOf(lastCommitted.getAsLong()));
      if (!fs.exists(offsets)) {
        return Map.of();
      }
      try (BufferedReader reader =
          new BufferedReader(new InputStreamReader(fs.open(offsets), StandardCharsets.UTF_8))) {
        // Line 1 is the log version, line 2 the batch metadata, then one line per source.
        reader.readLine();
        reader.readLine();
        String sourceOffsets = reader.readLine();
        return sourceOffsets == null ? Map.of() : parseOffsets(sourceOffsets);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the checkpoint " + checkpoint, e);
    }
  }

  static Map<TopicPartition, Long> parseOffsets(String json) throws IOException {
    Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
    JsonNode root = JSON.readTree(json);
    for (Iterator<Map.Entry<String, JsonNode>> topics = root.fields(); topics.hasNext(); ) {
      Map.Entry<String, JsonNode> topic = topics.next();
      for (Iterator<Map.Entry<String, JsonNode>> partitions = topic.getValue().fields(); partitions.hasNext(); ) {
        Map.Entry<String, JsonNode> partition = partitions.next();
        offsets.put(new TopicPartition(topic.getKey(), Integer.parseInt(partition.getKey())),
            partition.getValue().asLong());
      }
    }
    return offsets;
  }

  private Map<TopicPartition, Long> earliestOffsets(java.util.Collection<TopicPartition> partitions) {
    try (KafkaConsumer<byte[], byte[]> consumer = SourcePartitions.consumer(kafkaClient)) {
      return consumer.beginningOffsets(partitions, Duration.ofSeconds(60));
    }
  }

}
