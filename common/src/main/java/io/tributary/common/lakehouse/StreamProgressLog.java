package io.tributary.common.lakehouse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.SourceProgress;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One line per micro-batch of every stream of a session (bronze, silver): batch id, records, records/s, and for
 * Kafka sources how many records it is behind the end of each topic (latest offset in Kafka minus the batch's end
 * offset, summed over partitions).
 */
public final class StreamProgressLog extends StreamingQueryListener {
  private static final Logger LOG = LoggerFactory.getLogger("io.tributary.progress");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final java.util.Set<SparkSession> ATTACHED =
      java.util.Collections.newSetFromMap(new java.util.WeakHashMap<>());

  private StreamProgressLog() {}

  /** Adds the log to a session once, however many jobs start streams on it. */
  public static synchronized void attachTo(SparkSession spark) {
    if (ATTACHED.add(spark)) {
      spark.streams().addListener(new StreamProgressLog());
    }
  }

  @Override
  public void onQueryStarted(QueryStartedEvent event) {
    LOG.info("{} started (query id {})", event.name(), event.id());
  }

  @Override
  public void onQueryProgress(QueryProgressEvent event) {
    StreamingQueryProgress progress = event.progress();
    if (progress.numInputRows() == 0 && progress.sources().length > 0 && behind(progress.sources()[0]).isEmpty()) {
      return;
    }
    LOG.info(line(progress));
  }

  @Override
  public void onQueryTerminated(QueryTerminatedEvent event) {
    if (event.exception().isDefined()) {
      LOG.error("query {} failed: {}", event.id(), event.exception().get());
    }
  }

  static String line(StreamingQueryProgress progress) {
    StringBuilder behind = new StringBuilder();
    for (SourceProgress source : progress.sources()) {
      behind(source).forEach((topic, lag) -> behind.append(behind.isEmpty() ? "" : ", ").append(topic).append('=')
          .append(String.format("%,d", lag)));
    }
    return String.format("%s batch %d: %,d records, %,.0f records/s, behind: %s", progress.name(), progress.batchId(),
        progress.numInputRows(), progress.processedRowsPerSecond(), behind.isEmpty() ? "0" : behind);
  }

  /** Records between the batch's end and the latest offset, per topic; empty when Kafka reported nothing. */
  static Map<String, Long> behind(SourceProgress source) {
    Map<String, Long> lagByTopic = new TreeMap<>();
    try {
      if (source.latestOffset() == null || source.endOffset() == null) {
        return lagByTopic;
      }
      JsonNode latest = JSON.readTree(source.latestOffset());
      JsonNode end = JSON.readTree(source.endOffset());
      for (Iterator<Map.Entry<String, JsonNode>> topics = latest.fields(); topics.hasNext(); ) {
        Map.Entry<String, JsonNode> topic = topics.next();
        long lag = 0;
        for (Iterator<Map.Entry<String, JsonNode>> partitions = topic.getValue().fields(); partitions.hasNext(); ) {
          Map.Entry<String, JsonNode> partition = partitions.next();
          long done = end.path(topic.getKey()).path(partition.getKey()).asLong(0);
          lag += Math.max(0, partition.getValue().asLong() - done);
        }
        if (lag > 0) {
          lagByTopic.put(topic.getKey(), lag);
        }
      }
    } catch (java.io.IOException e) {
      // Progress JSON comes from Spark; an unexpected shape only costs the lag figure.
    }
    return lagByTopic;
  }
}
