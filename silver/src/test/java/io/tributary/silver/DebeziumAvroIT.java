package io.tributary.silver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.bronze.BronzeFixture;
import io.tributary.bronze.BronzeIngestJob;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.DependencyUnavailableException;
import io.tributary.common.testing.SharedSpark;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.testing.SharedKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.data.Struct;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debezium change events in Avro with a schema registry (the stand-in, {@link ConfluentRegistryStandIn}), from Kafka
 * through bronze into silver: two schema versions in one batch, out-of-order changes and a delete, decimals, dates
 * and timestamps from Debezium's semantic types; an unknown schema id, bytes that are not their schema's and a value
 * that is not in the wire format go to quarantine with the reason; a registry that is down is waited for and then
 * quarantines nothing; one that refuses the credentials fails the run naming the user, never the password.
 */
@ExtendWith({SharedSpark.class, SharedKafka.class})
class DebeziumAvroIT {
  private static final String SCHEMA = "id BIGINT, name STRING, credit DECIMAL(10,2), born DATE, seen TIMESTAMP";

  @Test
  void avroChangesOfTwoSchemaVersionsMergeAndBadOnesAreQuarantinedWithTheirReason(SparkSession spark,
      LocalKafkaBroker broker, @TempDir Path dir) throws Exception {
    try (ConfluentRegistryStandIn registry = new ConfluentRegistryStandIn()) {
      DebeziumAvroEvents v1 = new DebeziumAvroEvents(1, registry);
      DebeziumAvroEvents v2 = new DebeziumAvroEvents(2, registry);
      Struct ann = v1.customer(1, "Ann", "12.50", 19000, 1764504000000000L, null);
      Struct bob = v1.customer(2, "Bob", "3.10", null, null, null);
      Struct annRenamed = v2.customer(1, "Ann B", "13.00", 19000, 1764504000000000L, "ann@example.com");
      Struct cyd = v2.customer(3, "Cyd", null, null, null, "cyd@example.com");
      List<byte[]> values = new ArrayList<>(List.of(
          v1.change("r", null, ann, 100),
          v1.change("r", null, bob, 100),
          // Out of order: Ann's rename (v2) arrives before an older change of hers (v1), which must not win.
          v2.change("u", v2.customer(1, "Ann", "12.50", 19000, 1764504000000000L, null), annRenamed, 300),
          v1.change("u", ann, v1.customer(1, "Ann (old)", "1.00", null, null, null), 200),
          v2.change("c", null, cyd, 310),
          v1.change("d", bob, null, 320),
          DebeziumAvroEvents.garbageUnder(v1.schemaId()),
          DebeziumAvroEvents.garbageUnder(999),
          "{\"op\":\"c\"}".getBytes(StandardCharsets.UTF_8)));

      BronzeFixture fixture = new BronzeFixture(broker, dir);
      TributaryConfig config = load(fixture, registry.url(), "");
      send(fixture, values);
      new BronzeIngestJob(spark, config).run(true);
      new SilverMergeJob(spark, config).run(true);

      String lake = config.catalog().name();
      assertThat(spark.sql("SELECT id, name, credit, born, seen, email, _is_deleted FROM " + lake
          + ".silver.customers ORDER BY id").collectAsList().toString()).isEqualTo("["
          + "[1,Ann B,13.00,2022-01-08,2025-11-30 12:00:00.0,ann@example.com,false], "
          + "[2,Bob,3.10,null,null,null,true], "
          + "[3,Cyd,null,null,null,cyd@example.com,false]]");
      assertThat(spark.sql("SELECT reason FROM " + lake + ".silver.quarantine ORDER BY offset")
          .collectAsList().toString()).isEqualTo("["
          + "[Avro bytes do not match their writer schema (id " + v1.schemaId() + ")], "
          + "[unknown schema id 999 (the registry has no schema of that id)], "
          + "[value is not in the Confluent wire format (byte 0, a 4-byte schema id, then Avro binary)]]");
      assertThat(registry.lookups(v1.schemaId())).as("a schema is fetched once per run").isEqualTo(1);
    }
  }

  @Test
  void aRegistryThatIsDownIsWaitedForAndOneThatRefusesTheCredentialsFailsTheRun(SparkSession spark,
      LocalKafkaBroker broker, @TempDir Path dir) throws Exception {
    try (ConfluentRegistryStandIn registry = new ConfluentRegistryStandIn("tributary", "s3cret-pw")) {
      DebeziumAvroEvents v1 = new DebeziumAvroEvents(1, registry);
      BronzeFixture fixture = new BronzeFixture(broker, dir);
      send(fixture, List.of(v1.change("c", null, v1.customer(1, "Ann", "1.00", null, null, null), 100),
          v1.change("c", null, v1.customer(2, "Bob", "2.00", null, null, null), 101)));
      TributaryConfig wrong = load(fixture, registry.url(), "username = tributary, password = wrong-pw");
      new BronzeIngestJob(spark, wrong).run(true);

      assertThatThrownBy(() -> new SilverMergeJob(spark, wrong).run(true))
          .isInstanceOf(DependencyUnavailableException.class)
          .hasMessage("schema registry " + registry.url() + " refused the credentials of user 'tributary' (HTTP"
              + " 401): set tributary.schema-registry.username and password")
          .satisfies(failure -> assertThat(failure.toString()).doesNotContain("wrong-pw"));
      assertThat(spark.table(wrong.catalog().name() + ".silver.quarantine").count()).isZero();

      TributaryConfig right = load(fixture, registry.url(), "username = tributary, password = s3cret-pw");
      registry.stop();
      CompletableFuture<Void> run = CompletableFuture.runAsync(() -> new SilverMergeJob(spark, right).run(true));
      // The batch fails while the registry is away and its stream is restarted with a growing pause; the test
      // brings the registry back after the first failures.
      Thread.sleep(6_000);
      assertThat(run).as("still waiting for the registry").isNotDone();
      registry.start();
      run.get(3, TimeUnit.MINUTES);
      String lake = right.catalog().name();
      assertThat(spark.sql("SELECT id, name FROM " + lake + ".silver.customers ORDER BY id").collectAsList()
          .toString()).isEqualTo("[[1,Ann], [2,Bob]]");
      assertThat(spark.table(lake + ".silver.quarantine").count()).as("an outage quarantines nothing").isZero();
    }
  }

  private static TributaryConfig load(BronzeFixture fixture, String registryUrl, String credentials) {
    return fixture.config(Map.of("customers", "customers"), "tributary.schema-registry { url = \"" + registryUrl
        + "\", " + credentials + " }\n"
        + "tributary.silver.entities.customers { source = bronze.customers, decoder = debezium-avro, key = [id],"
        + " table = silver.customers, schema = \"" + SCHEMA + "\" }");
  }

  private static void send(BronzeFixture fixture, List<byte[]> values) throws Exception {
    fixture.createTopics(1, "customers");
    List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
    for (byte[] value : values) {
      records.add(new ProducerRecord<>(fixture.topic("customers"), null, null, value));
    }
    fixture.send("customers", records);
  }
}
