package io.tributary.bronze;

import io.tributary.common.config.BronzeSource;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.StreamState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Where each bronze stream stands: its last committed batch (from the checkpoint) and the records Kafka holds past
 * it. Reads only the checkpoints and Kafka; the streams themselves may run anywhere.
 */
public final class BronzeStatus {
  private BronzeStatus() {}

  public static List<StreamState> of(TributaryConfig config, Configuration hadoop) {
    List<StreamState> states = new ArrayList<>();
    OffsetLossCheck check = new OffsetLossCheck(config.kafka().clientProperties(), hadoop);
    Map<String, Object> properties = new HashMap<>(config.kafka().clientProperties());
    properties.put("enable.auto.commit", "false");
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      Map<String, List<PartitionInfo>> topics = consumer.listTopics(Duration.ofSeconds(60));
      for (BronzeSource source : config.bronze().sourceList()) {
        String checkpoint = config.checkpointFor("bronze", config.bronze().format(), source.table());
        List<TopicPartition> partitions = new ArrayList<>();
        topics.forEach((topic, infos) -> {
          if (source.pattern() != null ? topic.matches(source.pattern()) : source.topics().contains(topic)) {
            infos.forEach(info -> partitions.add(new TopicPartition(topic, info.partition())));
          }
        });
        Map<TopicPartition, Long> resume = check.resumeOffsets(checkpoint);
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(60));
        Map<TopicPartition, Long> beginning = consumer.beginningOffsets(partitions, Duration.ofSeconds(60));
        long behind = 0;
        for (TopicPartition partition : partitions) {
          long from = resume.getOrDefault(partition, beginning.get(partition));
          behind += Math.max(0, end.get(partition) - from);
        }
        OptionalLong batch = OptionalLong.empty();
        Optional<Instant> at = Optional.empty();
        FileStatus commit = lastCommit(checkpoint, hadoop);
        if (commit != null) {
          batch = OptionalLong.of(Long.parseLong(commit.getPath().getName()));
          at = Optional.of(Instant.ofEpochMilli(commit.getModificationTime()));
        }
        states.add(new StreamState("bronze-" + source.name(), batch, at, behind,
            String.format("%,d records in Kafka", behind)));
      }
    }
    return states;
  }

  private static FileStatus lastCommit(String checkpoint, Configuration hadoop) {
    try {
      Path commits = new Path(checkpoint, "commits");
      FileSystem fs = commits.getFileSystem(hadoop);
      if (!fs.exists(commits)) {
        return null;
      }
      FileStatus last = null;
      for (FileStatus file : fs.listStatus(commits)) {
        if (file.getPath().getName().matches("\\d+") && (last == null
            || Long.parseLong(file.getPath().getName()) > Long.parseLong(last.getPath().getName()))) {
          last = file;
        }
      }
      return last;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the checkpoint " + checkpoint, e);
    }
  }
}
