package io.tributary.localstack;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Publishes generated records to Kafka: idempotent producer with acks=all, so a record is written once and records
 * of one key keep their order. Optionally paced to a rate.
 */
public final class ShopProducer {
  /** How many records of each kind went to each topic. */
  public record Summary(Map<String, Map<GeneratedRecord.Kind, Long>> byTopic, Duration took) {
    public long total() {
      return byTopic.values().stream().flatMap(kinds -> kinds.values().stream()).mapToLong(Long::longValue).sum();
    }

    @Override
    public String toString() {
      StringBuilder text = new StringBuilder();
      byTopic.forEach((topic, kinds) -> text.append(String.format("  %-16s %s%n", topic, kinds)));
      return String.format("Produced %,d records in %.1f s:%n%s", total(), took.toMillis() / 1000.0, text);
    }
  }

  private ShopProducer() {}

  /** How often a send that takes long says how far it got. */
  private static final long PROGRESS_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);

  /**
   * Sends every record; {@code ratePerSecond} of 0 means as fast as possible. A send that takes long prints every
   * 10 s how many records it has handed to the producer and at what rate.
   */
  public static Summary send(Map<String, Object> clientProperties, Iterator<GeneratedRecord> records,
      double ratePerSecond) {
    return send(clientProperties, records, ratePerSecond, System.out::println);
  }

  /** As {@link #send(Map, Iterator, double)}, with the progress lines going to {@code progress}. */
  public static Summary send(Map<String, Object> clientProperties, Iterator<GeneratedRecord> records,
      double ratePerSecond, java.util.function.Consumer<String> progress) {
    Map<String, Object> properties = ProducerSettings.exactlyOnceInOrder(clientProperties);
    properties.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    properties.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    properties.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 16 * 1024 * 1024);
    properties.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    Map<String, Map<GeneratedRecord.Kind, Long>> counts = new TreeMap<>();
    long started = System.nanoTime();
    long nextProgress = started + PROGRESS_EVERY_NANOS;
    long sent = 0;
    java.util.concurrent.atomic.AtomicReference<Exception> failure = new java.util.concurrent.atomic.AtomicReference<>();
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer())) {
      while (records.hasNext()) {
        GeneratedRecord record = records.next();
        producer.send(new ProducerRecord<>(record.topic(), null, record.timestampMs(), record.key(), record.value()),
            (metadata, error) -> {
              if (error != null) {
                failure.compareAndSet(null, error);
              }
            });
        if (failure.get() != null) {
          break;
        }
        counts.computeIfAbsent(record.topic(), topic -> new EnumMap<>(GeneratedRecord.Kind.class))
            .merge(record.kind(), 1L, Long::sum);
        sent++;
        if (ratePerSecond > 0) {
          pace(started, sent, ratePerSecond);
        }
        if (System.nanoTime() >= nextProgress) {
          double seconds = (System.nanoTime() - started) / 1e9;
          progress.accept(String.format("  ... producing: %,d records in %.0f s, %,.0f records/s", sent, seconds,
              sent / seconds));
          nextProgress += PROGRESS_EVERY_NANOS;
        }
      }
      producer.flush();
    }
    if (failure.get() != null) {
      throw new IllegalStateException("Producing failed after " + sent + " records were handed to the producer: "
          + failure.get().getMessage(), failure.get());
    }
    return new Summary(counts, Duration.ofNanos(System.nanoTime() - started));
  }

  private static void pace(long started, long sent, double ratePerSecond) {
    long due = started + (long) (sent / ratePerSecond * TimeUnit.SECONDS.toNanos(1));
    long wait = due - System.nanoTime();
    if (wait > 0) {
      try {
        TimeUnit.NANOSECONDS.sleep(wait);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while producing", e);
      }
    }
  }
}
