package io.tributary.bronze;

import static io.tributary.bronze.BronzeFixture.header;
import static io.tributary.bronze.BronzeFixture.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.bronze.BronzeFixture.Coordinates;
import io.tributary.bronze.BronzeFixture.Landed;
import io.tributary.bronze.BronzeFixture.Sent;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.StreamRuns;
import io.tributary.common.testing.SharedSpark;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.testing.SharedKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith({SharedSpark.class, SharedKafka.class})
public class BronzeIngestIT {

  /** Every sent record is in the table exactly once with identical bytes; nothing else is. */
  public static void assertLandedExactly(List<Sent> sent, List<Landed> landed) {
    Map<Coordinates, Landed> byCoordinates = landed.stream()
        .collect(Collectors.toMap(Landed::coordinates, Function.identity(), (a, b) -> {
          throw new AssertionError("duplicate coordinates " + a.coordinates());
        }));
    assertThat(landed).hasSameSizeAs(sent);
    for (Sent record : sent) {
      Landed row = byCoordinates.get(record.coordinates());
      assertThat(row).as("row for %s", record.coordinates()).isNotNull();
      assertThat(BronzeFixture.sameBytes(row.key(), record.key())).as("key of %s", record.coordinates()).isTrue();
      assertThat(BronzeFixture.sameBytes(row.value(), record.value())).as("value of %s", record.coordinates()).isTrue();
      assertThat(row.headers()).as("headers of %s", record.coordinates()).isEqualTo(BronzeFixture.headersOf(record));
    }
  }

  @Test
  void landsEveryRecordOfTwoTopicsAndTwoPartitionsByteForByte(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(2, "orders", "payments");
    Random random = new Random(11);
    List<Sent> orders = new ArrayList<>();
    List<Sent> payments = new ArrayList<>();
    for (String topic : List.of("orders", "payments")) {
      List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
      for (int i = 0; i < 1500; i++) {
        byte[] key = ("key-" + random.nextInt(100)).getBytes(StandardCharsets.UTF_8);
        byte[] value = new byte[random.nextInt(300)];
        random.nextBytes(value);
        records.add(i % 10 == 0
            ? record(fixture.topic(topic), null, key, value, header("trace", ("t" + i).getBytes()), header("empty", null))
            : record(fixture.topic(topic), null, key, value));
      }
      (topic.equals("orders") ? orders : payments).addAll(fixture.send(topic, records));
    }
    assertThat(orders.stream().map(Sent::partition).distinct()).containsExactlyInAnyOrder(0, 1);

    TributaryConfig config = fixture.config(Map.of("orders", "orders", "payments", "payments"), "");
    new BronzeIngestJob(spark, config).runUntilCaughtUp();

    assertLandedExactly(orders, fixture.read(spark, config, "orders"));
    assertLandedExactly(payments, fixture.read(spark, config, "payments"));
    // Iceberg format v2, day partitions of the Kafka timestamp, zstd.
    String table = fixture.tableName(config, "orders");
    Map<String, String> properties = spark.sql("SHOW TBLPROPERTIES " + table).collectAsList().stream()
        .collect(Collectors.toMap(row -> row.getString(0), row -> row.getString(1)));
    assertThat(properties).containsEntry("format-version", "2").containsEntry("write.parquet.compression-codec", "zstd");
    assertThat(spark.sql("SELECT partition FROM " + table + ".partitions").schema().fieldNames()).contains("partition");
    assertThat(spark.table(table + ".partitions").selectExpr("partition.kafka_timestamp_day").count()).isPositive();
  }

  @Test
  void keepsNullKeysTombstonesHugeAndBinaryValuesByteForByte(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(2, "raw");
    byte[] huge = new byte[1024 * 1024];
    new Random(5).nextBytes(huge);
    byte[] notUtf8 = {(byte) 0xC3, (byte) 0x28, (byte) 0xA0, (byte) 0xA1, 0x00, (byte) 0xFF, (byte) 0xFE};
    String topic = fixture.topic("raw");
    List<Sent> sent = fixture.send("raw", List.of(
        record(topic, 0, null, "no key".getBytes()),
        record(topic, 1, "deleted".getBytes(), null),
        record(topic, 0, null, null),
        record(topic, 1, "huge".getBytes(), huge),
        record(topic, 0, notUtf8, notUtf8, header("bin", notUtf8)),
        record(topic, 1, new byte[0], new byte[0])));

    TributaryConfig config = fixture.config(Map.of("raw", "raw"), "");
    new BronzeIngestJob(spark, config).runUntilCaughtUp();

    List<Landed> landed = fixture.read(spark, config, "raw");
    assertLandedExactly(sent, landed);
    assertThat(landed.stream().filter(row -> row.value() == null)).hasSize(2);
    assertThat(landed.stream().filter(row -> row.key() == null)).hasSize(2);
  }

  @Test
  void stoppedMidStreamAndRestartedHasNoGapAndNoDuplicate(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(2, "clicks");
    List<Sent> sent = new ArrayList<>(fixture.sendSimple("clicks", 3000, 0));
    TributaryConfig config = fixture.config(Map.of("clicks", "clicks"),
        "tributary.bronze.defaults { max-offsets-per-trigger = 200, trigger = \"200 ms\" }");
    String table = fixture.tableName(config, "clicks");

    BronzeFixture.Running first = BronzeFixture.runInBackground(spark, config);
    await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).until(() -> BronzeFixture.rows(spark, table) >= 600);
    first.stop();
    long afterStop = spark.table(table).count();
    assertThat(afterStop).isLessThan(sent.size());

    sent.addAll(fixture.sendSimple("clicks", 500, 3000));
    BronzeFixture.Running second = BronzeFixture.runInBackground(spark, config);
    await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).until(() -> BronzeFixture.rows(spark, table) >= sent.size());
    second.stop();

    assertLandedExactly(sent, fixture.read(spark, config, "clicks"));
  }

  @Test
  void landsInDeltaWhenConfigured(SparkSession spark, LocalKafkaBroker broker, @TempDir Path dir) throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(2, "events");
    List<Sent> sent = new ArrayList<>(fixture.sendSimple("events", 400, 0));
    sent.addAll(fixture.send("events", List.of(record(fixture.topic("events"), 0, null, null,
        header("h", new byte[] {1, 2, 3})))));
    TributaryConfig config = fixture.config(Map.of("events", "events"),
        "tributary.bronze { format = delta, defaults.max-offsets-per-trigger = 150 }");

    StreamRuns.Outcome first = new BronzeIngestJob(spark, config).runUntilCaughtUp();
    // A second run with nothing new must not add anything either.
    StreamRuns.Outcome second = new BronzeIngestJob(spark, config).runUntilCaughtUp();
    // What each run says it did: 401 records in batches of at most 150, then nothing.
    assertThat(first.streams()).singleElement().satisfies(run -> {
      assertThat(run.name()).isEqualTo("bronze-events");
      assertThat(run.records()).isEqualTo(sent.size());
      assertThat(run.batches()).isGreaterThanOrEqualTo(3);
    });
    assertThat(first.describe()).matches("1 stream in [0-9.]+ s, 401 records: bronze-events \\d+ batches, 401 records");
    assertThat(second.records()).isZero();

    assertLandedExactly(sent, fixture.read(spark, config, "events"));
    String path = config.catalog().deltaWarehouse() + "/bronze/events";
    assertThat(spark.sql("DESCRIBE DETAIL delta.`" + path + "`").first().<String>getAs("format")).isEqualTo("delta");
    assertThat(spark.sql("DESCRIBE DETAIL delta.`" + path + "`").first().<scala.collection.Seq<String>>getAs(
        "partitionColumns").mkString(",")).isEqualTo("kafka_date");
  }

  static Map<String, Long> countByTopic(List<Landed> landed) {
    Map<String, Long> counts = new HashMap<>();
    landed.forEach(row -> counts.merge(row.coordinates().topic(), 1L, Long::sum));
    return counts;
  }
}
