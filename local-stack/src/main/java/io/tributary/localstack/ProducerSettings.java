package io.tributary.localstack;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;

/** Settings of the sample and test producers: every record written once, in order, or the send fails. */
public final class ProducerSettings {
  private ProducerSettings() {}

  /** {@code client} plus acks from all replicas, idempotence, and one request in flight per broker. */
  public static Map<String, Object> exactlyOnceInOrder(Map<String, Object> client) {
    Map<String, Object> properties = new LinkedHashMap<>(client);
    properties.put(ProducerConfig.ACKS_CONFIG, "all");
    properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    // With more than one request in flight, a first batch that fails with a retriable error on a new partition
    // while the next batch is accepted is retried with sequence 0 until the 120 s delivery timeout (KAFKA-14359;
    // seen in CI on a topic created a moment before). One in flight cannot overtake itself.
    properties.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    return properties;
  }
}
