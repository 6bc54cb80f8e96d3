package io.tributary.bronze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tributary.bronze.BronzeFixture.Landed;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.testing.SharedSpark;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.testing.SharedKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Records deleted by Kafka retention before bronze loaded them: a named failure by default, a logged skip on request. */
@ExtendWith({SharedSpark.class, SharedKafka.class})
class OffsetLossIT {

  @Test
  void failsNamingTheLostOffsetsThenSkipsThemWhenAllowed(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(1, "short");
    String topic = fixture.topic("short");
    fixture.sendSimple("short", 50, 0);
    TributaryConfig failing = fixture.config(Map.of("short", "short"), "");
    new BronzeIngestJob(spark, failing).runUntilCaughtUp();
    assertThat(fixture.read(spark, failing, "short")).hasSize(50);

    // Retention of half a second, segments rolled every 100 ms: what is sent next is deleted before bronze runs.
    shortenRetention(fixture, topic);
    fixture.sendSimple("short", 50, 50);
    Thread.sleep(300);
    fixture.sendSimple("short", 1, 100);
    TopicPartition partition = new TopicPartition(topic, 0);
    await().atMost(Duration.ofSeconds(60)).until(() -> earliest(fixture, partition) > 50);
    // Retention would go on deleting (the active segment too, once all of it is older than retention): restore
    // it, and take the earliest offset once it has stopped moving.
    setRetention(fixture, topic, "86400000", "604800000");
    AtomicLong seen = new AtomicLong(-1);
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(700)).until(() -> {
      long now = earliest(fixture, partition);
      return seen.getAndSet(now) == now;
    });
    long earliest = earliest(fixture, partition);

    assertThatThrownBy(() -> new BronzeIngestJob(spark, failing).runUntilCaughtUp())
        .isInstanceOf(BronzeDataLossException.class)
        .hasMessageStartingWith("Kafka no longer has " + (earliest - 50) + " records that bronze table bronze.short"
            + " (source 'short') has not loaded yet; retention deleted them before they were ingested:\n"
            + "  " + topic + " partition 0: offsets 50 to " + (earliest - 1) + " (" + (earliest - 50) + " records)\n"
            + "The stream did not start, so nothing was skipped.")
        .hasMessageContaining("set tributary.bronze.sources.short.on-data-loss = skip, or run bronze once with"
            + " --accept-data-loss");
    assertThat(fixture.read(spark, failing, "short")).hasSize(50);

    // Replaying the start of the topic: Kafka lost it, but bronze holds it, so the way forward is a rebuild from
    // bronze; accepting the loss records no gap, since bronze has every record.
    BronzeReingest.Bounds fromStart = new BronzeReingest.Bounds.Offsets("{\"" + topic + "\":{\"0\":0}}",
        java.util.Optional.empty());
    assertThatThrownBy(() -> new BronzeReingest(spark, failing).run("short", fromStart, System.out))
        .isInstanceOf(BronzeDataLossException.class)
        .hasMessageStartingWith("Kafka no longer has 50 records of the range (retention deleted them):\n"
            + "  " + topic + " partition 0: offsets 0 to 49 (50 records), bronze holds 50\n"
            + "Bronze table bronze.short holds 50 of them: they need no replay from Kafka. To rebuild the tables"
            + " built from bronze, run:\n  tributary rebuild --config FILE --table <silver table>\n")
        .hasMessageEndingWith("add --accept-data-loss.");
    BronzeReingest.Result accepted = new BronzeReingest(spark, failing).acceptingDataLoss().run("short", fromStart,
        System.out);
    assertThat(accepted.added()).isZero();
    assertThat(spark.catalog().tableExists(failing.catalog().name() + ".bronze._lost_offsets")).isFalse();

    TributaryConfig skipping = fixture.config(Map.of("short", "short"),
        "tributary.bronze.sources.short.on-data-loss = skip");
    new BronzeIngestJob(spark, skipping).runUntilCaughtUp();
    List<Landed> landed = fixture.read(spark, skipping, "short");
    long end = latest(fixture, partition);
    assertThat(landed).hasSize((int) (50 + end - earliest));
    assertThat(landed.stream().map(row -> row.coordinates().offset()).distinct().count()).isEqualTo(landed.size());
    assertThat(landed.stream().mapToLong(row -> row.coordinates().offset()).filter(o -> o >= 50 && o < earliest))
        .isEmpty();
    // The gap is a fact in the lakehouse, not only a log line.
    assertThat(spark.sql("SELECT source, bronze_table, topic, `partition`, from_offset, to_offset, records,"
        + " accepted_by FROM " + skipping.catalog().name() + ".bronze._lost_offsets").collectAsList().toString())
        .isEqualTo("[[short,bronze.short," + topic + ",0,50," + earliest + "," + (earliest - 50)
            + ",tributary.bronze.sources.short.on-data-loss = skip]]");
  }

  private static void shortenRetention(BronzeFixture fixture, String topic) throws Exception {
    setRetention(fixture, topic, "500", "100");
  }

  private static void setRetention(BronzeFixture fixture, String topic, String retentionMs, String segmentMs)
      throws Exception {
    try (Admin admin = Admin.create(fixture.client())) {
      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      Collection<AlterConfigOp> ops = List.of(
          new AlterConfigOp(new ConfigEntry("retention.ms", retentionMs), AlterConfigOp.OpType.SET),
          new AlterConfigOp(new ConfigEntry("segment.ms", segmentMs), AlterConfigOp.OpType.SET));
      admin.incrementalAlterConfigs(Map.of(resource, ops)).all().get(30, TimeUnit.SECONDS);
    }
  }

  private static long earliest(BronzeFixture fixture, TopicPartition partition) {
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(fixture)) {
      return consumer.beginningOffsets(List.of(partition)).get(partition);
    }
  }

  private static long latest(BronzeFixture fixture, TopicPartition partition) {
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(fixture)) {
      return consumer.endOffsets(List.of(partition)).get(partition);
    }
  }

  private static KafkaConsumer<byte[], byte[]> consumer(BronzeFixture fixture) {
    return new KafkaConsumer<>(Map.of("bootstrap.servers", fixture.broker.bootstrapServers()),
        new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }
}
