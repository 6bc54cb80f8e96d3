package io.tributary.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.bronze.BronzeFixture;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.testing.SharedSpark;
import io.tributary.localstack.GeneratedRecord;
import io.tributary.localstack.GeneratorOptions;
import io.tributary.localstack.LocalIcebergRestCatalog;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.LocalPostgres;
import io.tributary.localstack.ShopEventGenerator;
import io.tributary.localstack.testing.SharedKafka;
import io.tributary.silver.ShopReference;
import io.tributary.silver.SilverInBackground;
import io.tributary.silver.SilverMergeIT;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Maintenance while bronze and silver stream: the shop stream arrives in two parts while both jobs run
 * continuously and maintenance runs aggressively (every partition eligible, snapshots expired as soon as the streams
 * allow), all committing through a catalog with atomic commits (JDBC, REST). No stream fails, bronze holds every Kafka
 * record exactly once, and silver equals the reference.
 */
@ExtendWith({SharedSpark.class, SharedKafka.class})
class MaintenanceWhileStreamingIT {

  /**
   * On the catalogs a production deployment uses, each committing atomically: Iceberg's JDBC catalog on PostgreSQL,
   * and Iceberg's REST catalog server (its own JVM, its tables in PostgreSQL).
   */
  @ParameterizedTest(name = "{0} catalog")
  @ValueSource(strings = {"jdbc", "rest"})
  void maintenanceNextToRunningStreamsLosesNothingAndStopsNoStream(String catalog, SparkSession spark,
      LocalKafkaBroker broker, @TempDir Path dir) throws Exception {
    try (LocalPostgres postgres = LocalPostgres.start()) {
      if (catalog.equals("jdbc")) {
        maintainNextToStreams(spark, broker, dir, "tributary.catalog { type = jdbc, properties { uri = \""
            + postgres.jdbcUrl("postgres") + "\", \"jdbc.user\" = postgres } }\n");
      } else {
        try (LocalIcebergRestCatalog rest = LocalIcebergRestCatalog.start(dir.resolve("rest"),
            postgres.jdbcUrl("postgres"), "postgres", dir.resolve("warehouse"))) {
          maintainNextToStreams(spark, broker, dir, "tributary.catalog { type = rest, properties { uri = \""
              + rest.uri() + "\" } }\n");
        }
      }
    }
  }

  private static void maintainNextToStreams(SparkSession spark, LocalKafkaBroker broker, Path dir, String catalog)
      throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(2, "customers", "orders");
    List<GeneratedRecord> generated = new ArrayList<>();
    // Recent event times: Kafka's retention (7 days) counts from the record timestamps.
    ShopEventGenerator.records(new GeneratorOptions(400, 400, 80, 0.3, 0.03, 0.0, false,
        Instant.now().minus(Duration.ofHours(3)), Duration.ofHours(2), 29)).forEachRemaining(generated::add);
    TributaryConfig config = fixture.config(Map.of("customers", "customers", "orders", "orders"), catalog
            + "tributary.bronze.defaults { max-offsets-per-trigger = 100, trigger = \"300 ms\" }\n"
            + SilverMergeIT.entities("", 150) + "\ntributary.silver.defaults.trigger = \"300 ms\"\n"
            + "tributary.maintenance.defaults { min-input-files = 2, snapshot-retention = 1 ms, retain-last = 3 }\n"
            + "tributary.maintenance.bronze.quiet-for = 0s");
    String lake = config.catalog().name();

    // Both started at once on a fresh lakehouse, as a deployment does: bronze creates its tables only after it has
    // checked that Kafka answers, and continuous silver waits for them.
    BronzeFixture.Running bronze = BronzeFixture.runInBackground(spark, config);
    AtomicReference<Throwable> silverFailure = new AtomicReference<>();
    Thread silver = SilverInBackground.start(spark, config, silverFailure);

    try {
      streamWhileMaintaining(spark, fixture, config, generated, silver, silverFailure);
    } catch (Throwable failure) {
      try {
        bronze.stop();
        silver.join(60_000);
      } catch (Throwable stopping) {
        failure.addSuppressed(stopping); // the first failure is the one to read
      }
      throw failure;
    }
    bronze.stop(); // stops every active query, silver's too
    silver.join(60_000);
    assertThat(silverFailure.get()).as("silver failed").isNull();

    for (String topic : List.of("customers", "orders")) {
      String source = topic.equals("customers") ? GeneratorOptions.CUSTOMERS_TOPIC : GeneratorOptions.ORDERS_TOPIC;
      long sent = generated.stream().filter(record -> record.topic().equals(source)).count();
      assertThat(spark.sql("SELECT count(*), count(DISTINCT topic, partition, offset) FROM " + lake + ".bronze."
          + topic).first().toString()).as(topic).isEqualTo("[" + sent + "," + sent + "]");
    }
    assertThat(ShopReference.liveCustomers(spark, lake + ".silver.customers"))
        .isEqualTo(ShopReference.customers(generated));
    assertThat(ShopReference.orders(spark, lake + ".silver.orders")).isEqualTo(ShopReference.orders(generated));
    assertThat(ShopReference.customerHistory(spark, lake + ".silver.customer_history"))
        .isEqualTo(ShopReference.customerHistory(generated));
  }

  /** Sends the stream in two parts with maintenance after each, then waits for silver to equal the reference. */
  private static void streamWhileMaintaining(SparkSession spark, BronzeFixture fixture, TributaryConfig config,
      List<GeneratedRecord> generated, Thread silver, AtomicReference<Throwable> silverFailure) throws Exception {
    String lake = config.catalog().name();
    StringBuilder maintenance = new StringBuilder();
    int parts = 2;
    for (int part = 0; part < parts; part++) {
      List<GeneratedRecord> slice = generated.subList(part * generated.size() / parts,
          (part + 1) * generated.size() / parts);
      SilverMergeIT.send(fixture, slice);
      await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).until(() -> BronzeFixture.rows(spark, lake + ".silver.orders") > 0);
      maintenance.append(maintain(spark, config));
      assertStreamsRun(spark, silver, silverFailure);
    }

    Map<Long, List<String>> customers = ShopReference.customers(generated);
    Map<String, List<String>> orders = ShopReference.orders(generated);
    List<String> history = ShopReference.customerHistory(generated);
    await().atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofSeconds(2)).until(() -> {
      assertStreamsRun(spark, silver, silverFailure);
      return ShopReference.liveCustomers(spark, lake + ".silver.customers").equals(customers)
          && ShopReference.orders(spark, lake + ".silver.orders").equals(orders)
          && ShopReference.customerHistory(spark, lake + ".silver.customer_history").equals(history);
    });
    maintenance.append(maintain(spark, config));
    assertStreamsRun(spark, silver, silverFailure);
    // Maintenance did work next to the streams: compactions committed, snapshots expired.
    assertThat(spark.sql("SELECT operation FROM " + lake + ".bronze.orders.snapshots").as(Encoders.STRING())
        .collectAsList()).as(maintenance.toString()).contains("replace");
    assertThat(maintenance.toString()).contains("snapshots expired", "resumes at snapshot");
  }

  /** Both bronze streams are active, and the silver job (which restarts a stream after a lost commit) runs. */
  private static void assertStreamsRun(SparkSession spark, Thread silver, AtomicReference<Throwable> silverFailure) {
    assertThat(silverFailure.get()).as("silver failed").isNull();
    assertThat(silver.isAlive()).as("silver is running").isTrue();
    assertThat(Arrays.stream(spark.streams().active()).map(StreamingQuery::name).filter(name -> name != null
        && name.startsWith("bronze-"))).as("bronze streams").hasSize(2);
  }


  private static String maintain(SparkSession spark, TributaryConfig config) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    new MaintenanceJob(spark, config).run(Optional.empty(), Optional.empty(),
        new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String output = bytes.toString(StandardCharsets.UTF_8);
    System.out.print(output);
    return output;
  }
}
