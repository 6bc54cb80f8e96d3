package io.tributary.common.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One Kafka subscription landing in one bronze table.
 *
 * @param name the source's key under {@code tributary.bronze.sources}
 * @param topics the topics to read, or empty when {@code pattern} is set
 * @param pattern a Java regex of topics to read, or null when {@code topics} is set
 * @param table the bronze table
 * @param tableProperties extra table properties on creation (on top of Tributary's own)
 * @param trigger the processing-time trigger interval in continuous mode
 * @param maxOffsetsPerTrigger upper bound of records per micro-batch
 * @param startingOffsets {@code earliest}, {@code latest}, or Spark's JSON of offsets per partition
 * @param onDataLoss what to do when Kafka deleted offsets not yet loaded
 */
public record BronzeSource(
    String name,
    List<String> topics,
    String pattern,
    TableName table,
    Map<String, String> tableProperties,
    Duration trigger,
    long maxOffsetsPerTrigger,
    String startingOffsets,
    OnDataLoss onDataLoss) {

  static final Set<String> KEYS = Set.of(
      "topic", "topics", "pattern", "table", "table-properties", "trigger", "max-offsets-per-trigger",
      "starting-offsets", "on-data-loss");

  static BronzeSource read(String name, ConfigReader reader) {
    reader.rejectUnknownKeys(KEYS);
    int subscriptions = (reader.has("topic") ? 1 : 0) + (reader.has("topics") ? 1 : 0) + (reader.has("pattern") ? 1 : 0);
    List<String> topics = List.of();
    String pattern = null;
    if (subscriptions != 1) {
      reader.problem("topic", "set exactly one of 'topic', 'topics' or 'pattern'");
    } else if (reader.has("topic")) {
      String topic = reader.string("topic");
      topics = topic == null ? List.of() : List.of(topic);
    } else if (reader.has("topics")) {
      topics = List.copyOf(reader.stringList("topics"));
    } else {
      pattern = reader.string("pattern");
      if (pattern != null) {
        try {
          java.util.regex.Pattern.compile(pattern);
        } catch (java.util.regex.PatternSyntaxException e) {
          reader.valueProblem("pattern", "is not a valid regular expression: " + e.getDescription());
        }
      }
    }
    String startingOffsets = reader.string("starting-offsets");
    if (startingOffsets != null && !startingOffsets.equals("earliest") && !startingOffsets.equals("latest")
        && !startingOffsets.startsWith("{")) {
      reader.valueProblem("starting-offsets", "must be 'earliest', 'latest' or a JSON object of offsets per partition, got '"
          + startingOffsets + "'");
    }
    return new BronzeSource(
        name,
        topics,
        pattern,
        TableName.parse(reader, "table"),
        Map.copyOf(reader.stringMap("table-properties")),
        reader.positiveDuration("trigger"),
        reader.positiveLong("max-offsets-per-trigger"),
        startingOffsets,
        reader.oneOf("on-data-loss", OnDataLoss.class));
  }

  /** What the source reads, for logs and messages. */
  public String subscription() {
    return pattern != null ? "pattern " + pattern : String.join(",", topics);
  }
}
