package io.tributary.bronze;

import io.tributary.common.config.BronzeSource;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.CheckpointLogs;
import io.tributary.common.lakehouse.StreamState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Where each bronze stream stands: its last committed batch (from the checkpoint) and the records Kafka holds past
 * it. Reads only the checkpoints and Kafka; the streams themselves may run anywhere.
 */
public final class BronzeStatus {
  private BronzeStatus() {}

  /**
   * Where every bronze stream stands; a {@link io.tributary.common.lakehouse.DependencyUnavailableException} within
   * {@value KafkaReachability#SECONDS} s when Kafka does not answer.
   */
  public static List<StreamState> of(TributaryConfig config, Configuration hadoop) {
    KafkaReachability.check(config.kafka(), BronzeIngestJob.namedTopics(config));
    List<StreamState> states = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = SourcePartitions.consumer(config.kafka().clientProperties())) {
      Map<String, List<PartitionInfo>> topics = consumer.listTopics(Duration.ofSeconds(60));
      for (BronzeSource source : config.bronze().sourceList()) {
        String checkpoint = config.checkpointFor("bronze", config.bronze().format(), source.table());
        List<TopicPartition> partitions = SourcePartitions.of(source, topics);
        Map<TopicPartition, Long> resume = new BronzeCheckpoint(checkpoint, hadoop).resumeOffsets().offsets();
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
          batch = OptionalLong.of(CheckpointLogs.batchOf(commit));
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
      return CheckpointLogs.lastBatch(commits.getFileSystem(hadoop), commits).orElse(null);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the checkpoint " + checkpoint, e);
    }
  }
}
