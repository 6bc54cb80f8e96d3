package io.tributary.localstack;

/**
 * One record the sample generator publishes, with what it is meant to be, so that tests can tell good changes,
 * duplicates and deliberately bad records apart without parsing.
 *
 * @param topic the topic it goes to
 * @param key the key bytes, or null
 * @param value the value bytes, or null for a tombstone
 * @param timestampMs the Kafka record timestamp (event time)
 * @param kind what the record is
 */
public record GeneratedRecord(String topic, byte[] key, byte[] value, long timestampMs, Kind kind) {

  public enum Kind {
    /** A well-formed event or change. */
    EVENT,
    /** A second copy of the previous record, byte for byte. */
    DUPLICATE,
    /** A Kafka tombstone after a Debezium delete. */
    TOMBSTONE,
    /** A record that no decoder can accept. */
    MALFORMED
  }
}
