package io.tributary.benchmarks;

import io.tributary.localstack.LocalKafkaBroker;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * The raw Kafka consumer ceiling: Kafka's own ConsumerPerformance tool reading the same topic, in its own JVM.
 * Its fetch rate excludes the group rebalance, so it is the best a plain consumer does here.
 */
final class ConsumerCeiling {
  private ConsumerCeiling() {}

  static Rate measure(LocalKafkaBroker broker, String topic, long records) {
    String output = broker.runTool(Duration.ofMinutes(10), "org.apache.kafka.tools.ConsumerPerformance",
        "--bootstrap-server", broker.bootstrapServers(),
        "--topic", topic,
        "--num-records", String.valueOf(records),
        "--group", "ceiling-" + System.nanoTime(),
        "--timeout", "60000");
    List<String> lines = output.lines().filter(line -> !line.isBlank() && !line.startsWith("[")).toList();
    for (int i = 0; i + 1 < lines.size(); i++) {
      if (lines.get(i).startsWith("start.time")) {
        List<String> header = Arrays.stream(lines.get(i).split(",")).map(String::trim).toList();
        List<String> values = Arrays.stream(lines.get(i + 1).split(",")).map(String::trim).toList();
        long consumed = Long.parseLong(values.get(header.indexOf("data.consumed.in.nMsg")));
        long fetchMillis = Long.parseLong(values.get(header.indexOf("fetch.time.ms")));
        return new Rate(consumed, fetchMillis, 1);
      }
    }
    throw new IllegalStateException("Unexpected ConsumerPerformance output:\n" + output);
  }
}
