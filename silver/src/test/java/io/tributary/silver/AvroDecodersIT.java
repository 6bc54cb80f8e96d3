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
 * Avro with a schema registry. Debezium change events in Avro (the stand-in, {@link SchemaRegistryStandIn}), from Kafka
 * through bronze into silver: two schema versions in one batch, out-of-order changes and a delete, decimals, dates
 * and timestamps from Debezium's semantic types; an unknown schema id, bytes that are not their schema's and a value
 * that is not in the wire format go to quarantine with the reason; a registry that is down is waited for and then
 * quarantines nothing; one that refuses the credentials fails the run naming the user, never the password. An
 * application's own Avro records (decoder avro) are read as JSON events are: sequence, event time, out of order.
 */
@ExtendWith({SharedSpark.class, SharedKafka.class})
class AvroDecodersIT {
  private static final String SCHEMA = "id BIGINT, name STRING, credit DECIMAL(10,2), born DATE, seen TIMESTAMP";

  @Test
  void avroChangesOfTwoSchemaVersionsMergeAndBadOnesAreQuarantinedWithTheirReason(SparkSession spark,
      LocalKafkaBroker broker, @TempDir Path dir) throws Exception {
    try (SchemaRegistryStandIn registry = new SchemaRegistryStandIn()) {
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
      new BronzeIngestJob(spark, config).runUntilCaughtUp();
      new SilverMergeJob(spark, config).runUntilCaughtUp();

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
    try (SchemaRegistryStandIn registry = new SchemaRegistryStandIn("tributary", "s3cret-pw")) {
      DebeziumAvroEvents v1 = new DebeziumAvroEvents(1, registry);
      BronzeFixture fixture = new BronzeFixture(broker, dir);
      send(fixture, List.of(v1.change("c", null, v1.customer(1, "Ann", "1.00", null, null, null), 100),
          v1.change("c", null, v1.customer(2, "Bob", "2.00", null, null, null), 101)));
      TributaryConfig wrong = load(fixture, registry.url(), "username = tributary, password = wrong-pw");
      new BronzeIngestJob(spark, wrong).runUntilCaughtUp();

      assertThatThrownBy(() -> new SilverMergeJob(spark, wrong).runUntilCaughtUp())
          .isInstanceOf(DependencyUnavailableException.class)
          .hasMessage("schema registry " + registry.url() + " refused the credentials of user 'tributary' (HTTP"
              + " 401): set tributary.schema-registry.username and password")
          .satisfies(failure -> assertThat(failure.toString()).doesNotContain("wrong-pw"));
      assertThat(spark.table(wrong.catalog().name() + ".silver.quarantine").count()).isZero();

      TributaryConfig right = load(fixture, registry.url(), "username = tributary, password = s3cret-pw");
      registry.stop();
      CompletableFuture<Void> run = CompletableFuture.runAsync(() -> new SilverMergeJob(spark, right).runUntilCaughtUp());
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

  @Test
  void aRegistryOverTlsIsReachedThroughTheConfiguredTruststore(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    Path keystore = dir.resolve("registry.p12");
    Path truststore = dir.resolve("trust.p12");
    keytool("-genkeypair", "-alias", "registry", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=127.0.0.1",
        "-ext", "SAN=IP:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore", keystore.toString(),
        "-storepass", "key-pw-31", "-keypass", "key-pw-31");
    keytool("-exportcert", "-alias", "registry", "-keystore", keystore.toString(), "-storepass", "key-pw-31", "-rfc",
        "-file", dir.resolve("registry.pem").toString());
    keytool("-importcert", "-noprompt", "-alias", "registry", "-file", dir.resolve("registry.pem").toString(),
        "-keystore", truststore.toString(), "-storetype", "PKCS12", "-storepass", "trust-pw-77");
    java.security.KeyStore keys = java.security.KeyStore.getInstance("PKCS12");
    try (var in = java.nio.file.Files.newInputStream(keystore)) {
      keys.load(in, "key-pw-31".toCharArray());
    }
    javax.net.ssl.KeyManagerFactory keyManagers = javax.net.ssl.KeyManagerFactory.getInstance(
        javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
    keyManagers.init(keys, "key-pw-31".toCharArray());
    javax.net.ssl.SSLContext tls = javax.net.ssl.SSLContext.getInstance("TLS");
    tls.init(keyManagers.getKeyManagers(), null, null);

    try (SchemaRegistryStandIn registry = new SchemaRegistryStandIn(tls)) {
      DebeziumAvroEvents v1 = new DebeziumAvroEvents(1, registry);
      BronzeFixture fixture = new BronzeFixture(broker, dir);
      send(fixture, List.of(v1.change("c", null, v1.customer(1, "Ann", "1.00", null, null, null), 100)));
      TributaryConfig untrusted = load(fixture, registry.url(), "");
      new BronzeIngestJob(spark, untrusted).runUntilCaughtUp();
      assertThatThrownBy(() -> new SilverMergeJob(spark, untrusted).runUntilCaughtUp())
          .isInstanceOf(DependencyUnavailableException.class)
          .hasMessageStartingWith("schema registry " + registry.url() + ": TLS handshake failed (")
          .hasMessageEndingWith("); if its certificate is not signed by a CA this JVM trusts, set"
              + " tributary.schema-registry.truststore");

      TributaryConfig trusted = load(fixture, registry.url(), "truststore = \"" + truststore
          + "\", truststore-password = trust-pw-77");
      new SilverMergeJob(spark, trusted).runUntilCaughtUp();
      assertThat(spark.sql("SELECT id, name FROM " + trusted.catalog().name() + ".silver.customers")
          .collectAsList().toString()).isEqualTo("[[1,Ann]]");
      assertThat(trusted.schemaRegistry().toString()).doesNotContain("trust-pw-77");
    }
  }

  private static void keytool(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool")
        .toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor()).as("keytool %s: %s", args[0], output).isZero();
  }

  @Test
  void applicationAvroRecordsAreVersionsOfTheEntityInSequenceOrder(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    try (SchemaRegistryStandIn registry = new SchemaRegistryStandIn()) {
      org.apache.avro.Schema order = org.apache.avro.SchemaBuilder.record("Order").namespace("shop").fields()
          .requiredString("order_id").requiredString("status")
          .name("amount").type(org.apache.avro.LogicalTypes.decimal(10, 2)
              .addToSchema(org.apache.avro.Schema.create(org.apache.avro.Schema.Type.BYTES))).noDefault()
          .requiredLong("seq")
          .name("event_time").type(org.apache.avro.LogicalTypes.timestampMillis()
              .addToSchema(org.apache.avro.Schema.create(org.apache.avro.Schema.Type.LONG))).noDefault()
          .endRecord();
      int orderId = registry.register(order.toString());
      int stringId = registry.register("\"string\"");
      List<byte[]> values = List.of(
          AvroRecords.frame(orderId, order, AvroRecords.order(order, "o1", "created", "10.00", 1, 1764504000000L)),
          AvroRecords.frame(orderId, order, AvroRecords.order(order, "o1", "shipped", "10.00", 3, 1764504300000L)),
          AvroRecords.frame(orderId, order, AvroRecords.order(order, "o1", "paid", "10.00", 2, 1764504200000L)),
          AvroRecords.frame(orderId, order, AvroRecords.order(order, "o2", "created", "7.25", 1, 1764504100000L)),
          AvroRecords.frame(stringId, org.apache.avro.Schema.create(org.apache.avro.Schema.Type.STRING),
              new org.apache.avro.util.Utf8("o3")));
      BronzeFixture fixture = new BronzeFixture(broker, dir);
      send(fixture, values);
      TributaryConfig config = fixture.config(Map.of("customers", "customers"), "tributary.schema-registry.url = \""
          + registry.url() + "\"\n"
          + "tributary.silver.entities.orders { source = bronze.customers, decoder = avro, key = [order_id],"
          + " sequence = [seq], event-time-field = event_time, table = silver.orders, schema = \"order_id STRING,"
          + " status STRING, amount DECIMAL(10,2), seq BIGINT, event_time TIMESTAMP\" }");
      new BronzeIngestJob(spark, config).runUntilCaughtUp();
      new SilverMergeJob(spark, config).runUntilCaughtUp();

      String lake = config.catalog().name();
      assertThat(spark.sql("SELECT order_id, status, amount, seq, event_time, _ts_ms FROM " + lake
          + ".silver.orders ORDER BY order_id").collectAsList().toString()).isEqualTo("["
          + "[o1,shipped,10.00,3,2025-11-30 12:05:00.0,1764504300000], "
          + "[o2,created,7.25,1,2025-11-30 12:01:40.0,1764504100000]]");
      assertThat(spark.sql("SELECT reason FROM " + lake + ".silver.quarantine").collectAsList().toString())
          .isEqualTo("[[schema id " + stringId + " is not a record but string]]");
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
