package io.tributary.localstack;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.localstack.testing.SharedKafka;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(SharedKafka.class)
class LocalKafkaBrokerIT {

  @Test
  void servesOnLoopbackAndStoresWhatTheShopProducerSends(LocalKafkaBroker broker) {
    assertThat(broker.bootstrapServers()).startsWith("127.0.0.1:").doesNotEndWith(":9092");
    assertThat(broker.isServing()).isTrue();
    assertThat(LocalKafkaBroker.find(broker.home())).map(LocalKafkaBroker::pid).contains(broker.pid());

    Map<String, Object> client = Map.of("bootstrap.servers", broker.bootstrapServers());
    Topics.create(client, List.of(GeneratorOptions.ORDERS_TOPIC, GeneratorOptions.CUSTOMERS_TOPIC), 2, Map.of());
    GeneratorOptions options = new GeneratorOptions(200, 100, 10, 0.2, 0.05, 0.02, false,
        Instant.parse("2026-11-01T00:00:00Z"), Duration.ofHours(5), 3);
    ShopProducer.Summary summary = ShopProducer.send(client, ShopEventGenerator.records(options), 0);

    Properties consumer = new Properties();
    consumer.put("bootstrap.servers", broker.bootstrapServers());
    consumer.put("auto.offset.reset", "earliest");
    consumer.put("group.id", "local-kafka-it");
    long consumed = 0;
    try (KafkaConsumer<byte[], byte[]> kafka =
        new KafkaConsumer<>(consumer, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      kafka.subscribe(List.of(GeneratorOptions.ORDERS_TOPIC, GeneratorOptions.CUSTOMERS_TOPIC));
      Instant deadline = Instant.now().plusSeconds(60);
      while (consumed < summary.total() && Instant.now().isBefore(deadline)) {
        for (ConsumerRecord<byte[], byte[]> ignored : kafka.poll(Duration.ofMillis(500))) {
          consumed++;
        }
      }
    }
    assertThat(consumed).isEqualTo(summary.total());
    assertThat(summary.byTopic()).containsOnlyKeys(GeneratorOptions.ORDERS_TOPIC, GeneratorOptions.CUSTOMERS_TOPIC);
  }
}
