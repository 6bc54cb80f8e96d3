package io.tributary.common.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * How to reach Kafka.
 *
 * @param bootstrapServers {@code host:port[,host:port...]}
 * @param options any Kafka client setting (security.protocol, sasl.*, ssl.*, ...), passed through unchanged
 */
public record KafkaConfig(String bootstrapServers, Map<String, String> options) {

  static final Set<String> KEYS = Set.of("bootstrap-servers", "options");

  /** Client settings Spark's Kafka source sets itself and refuses from the user (it owns offsets and bytes). */
  static final Set<String> OWNED_BY_SPARK = Set.of("auto.offset.reset", "enable.auto.commit", "key.deserializer",
      "value.deserializer", "key.serializer", "value.serializer", "interceptor.classes");

  static KafkaConfig read(ConfigReader reader) {
    reader.rejectUnknownKeys(KEYS);
    String servers = reader.string("bootstrap-servers");
    Map<String, String> options = reader.stringMap("options");
    if (options.containsKey("bootstrap.servers")) {
      reader.problem("options.\"bootstrap.servers\"", "set tributary.kafka.bootstrap-servers instead");
    }
    for (String key : options.keySet()) {
      if (OWNED_BY_SPARK.contains(key)) {
        reader.problem("options.\"" + key + "\"", "is set by Spark's Kafka source and cannot be configured");
      }
    }
    return new KafkaConfig(servers, Map.copyOf(options));
  }

  /** With every secret's value hidden: a config is printed in errors and logs. */
  @Override
  public String toString() {
    return "KafkaConfig[bootstrapServers=" + bootstrapServers + ", options=" + Secrets.hidden(options) + "]";
  }

  /** Properties for a plain Kafka client (admin, consumer, producer). */
  public Map<String, Object> clientProperties() {
    Map<String, Object> properties = new LinkedHashMap<>(options);
    properties.put("bootstrap.servers", bootstrapServers);
    return properties;
  }

  /** Options for Spark's Kafka source, which wants client settings prefixed with {@code kafka.}. */
  public Map<String, String> sparkSourceOptions() {
    Map<String, String> sparkOptions = new LinkedHashMap<>();
    options.forEach((key, value) -> sparkOptions.put("kafka." + key, value));
    sparkOptions.put("kafka.bootstrap.servers", bootstrapServers);
    return sparkOptions;
  }
}
