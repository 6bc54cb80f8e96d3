package io.tributary.silver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.bronze.BronzeFixture;
import io.tributary.bronze.BronzeIngestJob;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.DeltaHistory;
import io.tributary.common.lakehouse.DeltaTableRollback;
import io.tributary.common.lakehouse.SilverCheckpoints;
import io.tributary.common.lakehouse.StreamCommits;
import io.tributary.common.lakehouse.TableRollback;
import io.tributary.common.testing.SharedSpark;
import io.tributary.localstack.GeneratedRecord;
import io.tributary.localstack.GeneratorOptions;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.ShopEventGenerator;
import io.tributary.localstack.testing.SharedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recovery of silver tables: a wrong mapping fixed by a rebuild from bronze, a rebuild while the stream runs, and a
 * rollback (and a rebuild from an earlier snapshot) after which the stream re-applies what came later. Every time
 * the table ends equal to the reference computed from the generated orders, and quarantine holds each malformed
 * record once.
 */
@ExtendWith({SharedSpark.class, SharedKafka.class})
class RecoveryIT {
  private static final String ORDER_SCHEMA = SilverMergeIT.ORDER_SCHEMA;

  /** The orders entity keyed on {@code key} (the mapping under test: the right key is order_id). */
  private static String orders(String key) {
    return "tributary.silver.entities.orders { source = bronze.orders, decoder = json, key = [" + key + "],"
        + " sequence = [seq], event-time-field = event_time, table = silver.orders,"
        + " max-rows-per-trigger = 150, schema = \"" + ORDER_SCHEMA + "\" }\n";
  }

  private static List<GeneratedRecord> generate(long seed) {
    List<GeneratedRecord> orders = new ArrayList<>();
    // Recent event times: Kafka's retention (7 days) counts from the record timestamps.
    ShopEventGenerator.records(new GeneratorOptions(300, 10, 20, 0.3, 0.05, 0.03, false,
        Instant.now().minus(Duration.ofHours(3)), Duration.ofHours(2), seed)).forEachRemaining(record -> {
          if (record.topic().equals(GeneratorOptions.ORDERS_TOPIC)) {
            orders.add(record);
          }
        });
    return orders;
  }

  private static void send(BronzeFixture fixture, List<GeneratedRecord> records) throws Exception {
    String topic = fixture.topic("orders");
    fixture.send("orders", records.stream().map(record -> new ProducerRecord<>(topic, null, record.timestampMs(),
        record.key(), record.value())).toList());
  }

  /**
   * On Iceberg silver reading Delta bronze (the Iceberg-on-Iceberg rebuilds are the other tests'): a rebuild from
   * all of bronze, a rollback after which the stream re-applies the bronze changes from Delta's offsets, and a rebuild
   * that replaces a damaged table.
   */
  @Test
  void aWrongMappingIsFixedByARebuildAndStaysReadableByTimeTravel(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(2, "orders");
    List<GeneratedRecord> generated = generate(41);
    List<GeneratedRecord> first = generated.subList(0, generated.size() * 2 / 3);
    send(fixture, first);
    String deltaBronze = "tributary.bronze.format = delta\n";
    TributaryConfig wrong = fixture.config(Map.of("orders", "orders"), orders("customer_id") + deltaBronze);
    new BronzeIngestJob(spark, wrong).runUntilCaughtUp();
    new SilverMergeJob(spark, wrong).runUntilCaughtUp();
    String lake = wrong.catalog().name();
    String table = lake + ".silver.orders";
    Map<String, List<String>> wrongState = ShopReference.orders(spark, table);
    assertThat(wrongState).as("the wrong key keeps one order per customer").isNotEqualTo(ShopReference.orders(first));
    long wrongSnapshot = icebergTable(spark, table).currentSnapshot().snapshotId();

    TributaryConfig fixed = fixture.config(Map.of("orders", "orders"), orders("order_id") + deltaBronze);
    SilverRebuild.Result result = new SilverRebuild(spark, fixed).run("silver.orders", OptionalLong.empty(),
        System.out);

    assertThat(ShopReference.orders(spark, table)).isEqualTo(ShopReference.orders(first));
    assertThat(result.previousSnapshot()).hasValue(wrongSnapshot);
    assertThat(result.rows()).as("the rows the rebuilt table holds").isEqualTo(spark.table(table).count());
    assertThat(ShopReference.orders(spark, table + " VERSION AS OF " + wrongSnapshot)).isEqualTo(wrongState);
    assertThat(quarantined(spark, lake)).isEqualTo(SilverMergeIT.malformed(first, GeneratorOptions.ORDERS_TOPIC));
    assertThat(spark.catalog().tableExists(lake + ".silver.orders__rebuild")).as("shadow dropped").isFalse();
    List<String> quarantineAfterRebuild = rows(spark, lake + ".silver.quarantine");

    // The stream goes on from the rebuild's checkpoint with the rest of the topic.
    send(fixture, generated.subList(first.size(), generated.size()));
    new BronzeIngestJob(spark, fixed).runUntilCaughtUp();
    new SilverMergeJob(spark, fixed).runUntilCaughtUp();
    assertThat(ShopReference.orders(spark, table)).isEqualTo(ShopReference.orders(generated));
    assertThat(quarantined(spark, lake)).isEqualTo(SilverMergeIT.malformed(generated, GeneratorOptions.ORDERS_TOPIC));
    Table rebuilt = icebergTable(spark, table);
    assertThat(rebuilt.properties().get(SilverCheckpoints.PROPERTY)).isEqualTo(result.checkpoint());
    assertThat(rebuilt.currentSnapshot().summary().get(StreamCommits.STREAM_ID))
        .isEqualTo(queryId(result.checkpoint()));

    // A rollback to the rebuilt content: the stream re-applies the rest of the topic after it, nothing twice.
    List<String> rebuiltRows = rows(spark, table + " VERSION AS OF " + result.snapshot());
    new SilverRollback(spark, fixed).apply("silver.orders", result.snapshot(), System.out);
    assertThat(rows(spark, table)).isEqualTo(rebuiltRows);
    // The rebuild's own quarantine rows (written after its switch commit, recording its batch), not the ones before.
    assertThat(rows(spark, lake + ".silver.quarantine")).isEqualTo(quarantineAfterRebuild);
    new SilverMergeJob(spark, fixed).runUntilCaughtUp();
    assertThat(ShopReference.orders(spark, table)).isEqualTo(ShopReference.orders(generated));
    assertThat(quarantined(spark, lake)).isEqualTo(SilverMergeIT.malformed(generated, GeneratorOptions.ORDERS_TOPIC));

    // A data file deleted behind the pipeline's back: the table cannot be read, and a rebuild replaces it (its
    // validation compares the shadow with bronze, not with the damaged table).
    String gone = spark.sql("SELECT file_path FROM " + table + ".files WHERE content = 0 LIMIT 1").first().getString(0);
    java.nio.file.Files.delete(Path.of(gone.startsWith("file:") ? java.net.URI.create(gone).getPath() : gone));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> spark.table(table).collectAsList())
        .hasMessageContaining(gone.replaceFirst("^file:", ""));
    new SilverRebuild(spark, fixed).run("silver.orders", OptionalLong.empty(), System.out);
    assertThat(ShopReference.orders(spark, table)).isEqualTo(ShopReference.orders(generated));
  }

  @Test
  void aRebuildWhileTheStreamRunsShowsReadersOldOrNewAndTheStreamGoesOn(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(2, "orders");
    List<GeneratedRecord> generated = generate(43);
    TributaryConfig config = fixture.config(Map.of("orders", "orders"),
        "tributary.bronze.defaults { max-offsets-per-trigger = 60, trigger = \"300 ms\" }\n" + orders("order_id")
            + "tributary.silver.defaults.trigger = \"300 ms\"\n");
    String lake = config.catalog().name();
    String table = lake + ".silver.orders";
    int parts = 6;
    send(fixture, generated.subList(0, generated.size() / parts));

    // The bronze table first, so that silver's stream starts at once instead of waiting for it.
    new BronzeIngestJob(spark, config).createTables();
    BronzeFixture.Running bronze = BronzeFixture.runInBackground(spark, config);
    AtomicReference<Throwable> silverFailure = new AtomicReference<>();
    Thread silver = SilverInBackground.start(spark, config, silverFailure);
    // Readers count the orders all along: the count only grows (orders are never deleted) unless a reader saw a
    // half-built table.
    List<Long> counts = new CopyOnWriteArrayList<>();
    AtomicBoolean reading = new AtomicBoolean(true);
    Thread reader = new Thread(() -> {
      while (reading.get()) {
        counts.add(BronzeFixture.rows(spark, table));
        sleep(150);
      }
    }, "reader");
    AtomicReference<Throwable> producerFailure = new AtomicReference<>();
    Thread producer = new Thread(() -> {
      try {
        for (int part = 1; part < parts - 2; part++) { // the last two parts come after the switch
          sleep(1500);
          send(fixture, generated.subList(part * generated.size() / parts, (part + 1) * generated.size() / parts));
        }
      } catch (Throwable e) {
        producerFailure.set(e);
      }
    }, "producer");
    SilverRebuild.Result result;
    try {
      await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).until(() -> BronzeFixture.rows(spark, table) > 0);
      reader.start();
      producer.start();
      result = new SilverRebuild(spark, config).run("silver.orders", OptionalLong.empty(), System.out);
      producer.join(120_000);
      assertThat(producerFailure.get()).isNull();
      for (int part = parts - 2; part < parts; part++) {
        send(fixture, generated.subList(part * generated.size() / parts, (part + 1) * generated.size() / parts));
        sleep(1500);
      }
      Map<String, List<String>> reference = ShopReference.orders(generated);
      await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(2)).until(() -> {
        assertThat(silverFailure.get()).as("silver failed").isNull();
        assertThat(silver.isAlive()).as("silver runs").isTrue();
        return ShopReference.orders(spark, table).equals(reference);
      });
      reading.set(false);
      reader.join(10_000);
    } finally {
      reading.set(false);
      bronze.stop(); // stops every active query, silver's too
      silver.join(60_000);
    }
    assertThat(silverFailure.get()).as("silver failed").isNull();
    assertThat(counts).as("orders seen by readers").hasSizeGreaterThan(5).isSorted();
    assertThat(quarantined(spark, lake)).isEqualTo(SilverMergeIT.malformed(generated, GeneratorOptions.ORDERS_TOPIC));
    // The running job moved to the rebuild's checkpoint by itself and committed there.
    Table live = icebergTable(spark, table);
    assertThat(live.properties().get(SilverCheckpoints.PROPERTY)).isEqualTo(result.checkpoint());
    assertThat(spark.sql("SELECT count(*) FROM " + table + ".snapshots WHERE summary['" + StreamCommits.STREAM_ID
        + "'] = '" + queryId(result.checkpoint()) + "' AND committed_at > (SELECT committed_at FROM " + table
        + ".snapshots WHERE snapshot_id = " + result.snapshot() + ")").first().getLong(0))
        .as("commits of the running job after the switch").isPositive();
  }

  @Test
  void aRollbackReturnsTheEarlierContentAndTheStreamReappliesWhatCameAfter(SparkSession spark,
      LocalKafkaBroker broker, @TempDir Path dir) throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(2, "orders");
    List<GeneratedRecord> generated = generate(47);
    List<GeneratedRecord> first = generated.subList(0, generated.size() / 2);
    TributaryConfig config = fixture.config(Map.of("orders", "orders"), orders("order_id"));
    String lake = config.catalog().name();
    String table = lake + ".silver.orders";
    new BronzeIngestJob(spark, config).createTables();
    new SilverMergeJob(spark, config).runUntilCaughtUp(); // starts with bronze, so it follows bronze's commits
    send(fixture, first);
    new BronzeIngestJob(spark, config).runUntilCaughtUp();
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    long earlier = icebergTable(spark, table).currentSnapshot().snapshotId();
    List<String> earlierRows = rows(spark, table + " VERSION AS OF " + earlier);
    send(fixture, generated.subList(first.size(), generated.size()));
    new BronzeIngestJob(spark, config).runUntilCaughtUp();
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    Map<String, List<String>> reference = ShopReference.orders(generated);
    assertThat(ShopReference.orders(spark, table)).isEqualTo(reference);

    Table silver = icebergTable(spark, table);
    TableRollback.Preview preview = TableRollback.preview(spark, table, silver, earlier);
    assertThat(preview.targetRows()).isEqualTo(earlierRows.size());
    assertThat(preview.currentRows()).isEqualTo(spark.table(table).count());
    assertThat(preview.rowsRemoved()).isPositive();
    assertThat(icebergTable(spark, table).currentSnapshot().snapshotId()).as("a preview changes nothing")
        .isEqualTo(preview.currentSnapshot());

    new SilverRollback(spark, config).apply("silver.orders", earlier, System.out);
    assertThat(rows(spark, table)).isEqualTo(earlierRows);
    assertThat(quarantined(spark, lake)).isEqualTo(SilverMergeIT.malformed(first, GeneratorOptions.ORDERS_TOPIC));

    // The stream re-applies the bronze changes after that snapshot: the table catches up, nothing twice.
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    assertThat(ShopReference.orders(spark, table)).isEqualTo(reference);
    assertThat(quarantined(spark, lake)).isEqualTo(SilverMergeIT.malformed(generated, GeneratorOptions.ORDERS_TOPIC));

    // A rebuild from that snapshot ends in the same state.
    long beforeRebuild = icebergTable(spark, table).currentSnapshot().snapshotId();
    long rowsBefore = spark.table(table).count();
    assertThat(icebergTable(spark, table).currentSnapshot().summary()).as("updates left deletes")
        .containsKey("total-position-deletes").doesNotContainEntry("total-position-deletes", "0");
    SilverRebuild.Result fromEarlier = new SilverRebuild(spark, config).run("silver.orders", OptionalLong.of(earlier),
        System.out);
    assertThat(fromEarlier.previousRows()).as("the rows the table held (its deleted rows not counted)")
        .isEqualTo(rowsBefore);
    assertThat(fromEarlier.rows()).as("the rows the rebuilt table holds")
        .isEqualTo(spark.sql("SELECT count(*) FROM " + table + " VERSION AS OF " + fromEarlier.snapshot()).first()
            .getLong(0));
    assertThat(ShopReference.orders(spark, table)).isEqualTo(reference);
    assertThat(quarantined(spark, lake)).isEqualTo(SilverMergeIT.malformed(generated, GeneratorOptions.ORDERS_TOPIC));
    assertThat(ShopReference.orders(spark, table + " VERSION AS OF " + beforeRebuild)).isEqualTo(reference);
  }

  /**
   * The same on Delta: RESTORE brings back the version's files and properties, the stream re-applies the bronze
   * changes after it from a new checkpoint (a new query id, so Delta's transaction versions do not skip them), and
   * the quarantine rows go back too. Then, on the same tables, the two rebuilds: from an earlier version, and from all
   * of bronze while bronze and silver run and the rest of the topic arrives.
   */
  @Test
  void aDeltaRollbackAndRebuildsReturnTheRightContentAndTheStreamGoesOn(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(2, "orders");
    List<GeneratedRecord> generated = generate(53);
    List<GeneratedRecord> first = generated.subList(0, generated.size() / 2);
    List<GeneratedRecord> sent = generated.subList(0, generated.size() * 5 / 6);
    List<GeneratedRecord> last = generated.subList(sent.size(), generated.size());
    TributaryConfig config = fixture.config(Map.of("orders", "orders"), orders("order_id")
        + "tributary.bronze.format = delta\ntributary.silver.format = delta\n"
        + "tributary.bronze.defaults.trigger = \"300 ms\"\ntributary.silver.defaults.trigger = \"300 ms\"\n");
    io.tributary.common.lakehouse.Tables tables = new io.tributary.common.lakehouse.Tables(config.catalog());
    String table = "delta.`" + tables.deltaPath(config.silver().entities().get("orders").table()) + "`";
    String quarantine = "delta.`" + tables.deltaPath(config.silver().quarantine()) + "`";
    new BronzeIngestJob(spark, config).createTables();
    send(fixture, first);
    new BronzeIngestJob(spark, config).runUntilCaughtUp();
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    long earlier = spark.sql("DESCRIBE HISTORY " + table).agg(org.apache.spark.sql.functions.max("version")).first()
        .getLong(0);
    List<String> earlierRows = rows(spark, table + " VERSION AS OF " + earlier);
    send(fixture, sent.subList(first.size(), sent.size()));
    new BronzeIngestJob(spark, config).runUntilCaughtUp();
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    Map<String, List<String>> reference = ShopReference.orders(sent);
    assertThat(ShopReference.orders(spark, table)).isEqualTo(reference);

    DeltaSilverRollback rollback = new DeltaSilverRollback(spark, config);
    io.tributary.common.lakehouse.TableAddress address = SilverLayout.of(config).silver(config.silver().entities()
        .get("orders").table());
    assertThat(DeltaTableRollback.target(history(spark, address), OptionalLong.of(earlier),
        java.util.Optional.empty())).isEqualTo(earlier);
    TableRollback.Preview preview = DeltaTableRollback.preview(spark, address, history(spark, address), earlier);
    assertThat(preview.targetRows()).isEqualTo(earlierRows.size());
    assertThat(preview.currentRows()).isEqualTo(spark.table(table).count());
    assertThat(preview.rowsRemoved()).isPositive();
    long rolledBackFrom = preview.currentSnapshot();

    rollback.apply("silver.orders", earlier, System.out);
    assertThat(rows(spark, table)).isEqualTo(earlierRows);
    assertThat(quarantinedIn(spark, quarantine)).isEqualTo(SilverMergeIT.malformed(first,
        GeneratorOptions.ORDERS_TOPIC));
    assertThat(switching(spark, table)).as("the switch is over").isZero();

    // The stream re-applies the bronze changes after that version: the table catches up, nothing twice.
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    assertThat(ShopReference.orders(spark, table)).isEqualTo(reference);
    assertThat(quarantinedIn(spark, quarantine)).isEqualTo(SilverMergeIT.malformed(sent,
        GeneratorOptions.ORDERS_TOPIC));

    // A second rollback, to the version before the first one, goes through the RESTORE in the history.
    TableRollback.Preview back = DeltaTableRollback.preview(spark, address, history(spark, address),
        rolledBackFrom);
    assertThat(back.rowsRemoved()).as("the content is the same as before the first rollback").isZero();
    rollback.apply("silver.orders", rolledBackFrom, System.out);
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    assertThat(ShopReference.orders(spark, table)).isEqualTo(reference);
    assertThat(quarantinedIn(spark, quarantine)).isEqualTo(SilverMergeIT.malformed(sent,
        GeneratorOptions.ORDERS_TOPIC));

    // A rebuild from the version the first rollback went back to (found through both RESTOREs) ends in the same
    // state; the content before it stays readable.
    long rowsBefore = spark.table(table).count();
    String tableId = spark.sql("DESCRIBE DETAIL " + table).first().getAs("id");
    SilverRebuild.Result fromEarlier = new DeltaSilverRebuild(spark, config).run("silver.orders",
        OptionalLong.of(earlier), System.out);
    assertThat(fromEarlier.previousRows()).isEqualTo(rowsBefore);
    assertThat(fromEarlier.rows()).isEqualTo(spark.table(table).count());
    assertThat(ShopReference.orders(spark, table)).isEqualTo(reference);
    assertThat(quarantinedIn(spark, quarantine)).isEqualTo(SilverMergeIT.malformed(sent,
        GeneratorOptions.ORDERS_TOPIC));
    assertThat(ShopReference.orders(spark, table + " VERSION AS OF " + fromEarlier.previousSnapshot().getAsLong()))
        .isEqualTo(reference);
    assertThat(Path.of(tables.deltaPath(new io.tributary.common.config.TableName("silver", "orders__rebuild"))))
        .as("shadow dropped").doesNotExist();
    assertThat((String) spark.sql("DESCRIBE DETAIL " + table).first().getAs("id"))
        .as("the same table, so readers following it are not cut off").isEqualTo(tableId);

    // A rebuild from all of bronze while bronze and silver run and the rest of the topic arrives: readers see the
    // old or the new content, and the running job moves to the rebuild's checkpoint by itself.
    BronzeFixture.Running bronze = BronzeFixture.runInBackground(spark, config);
    AtomicReference<Throwable> silverFailure = new AtomicReference<>();
    Thread silver = SilverInBackground.start(spark, config, silverFailure);
    AtomicReference<Throwable> producerFailure = new AtomicReference<>();
    Thread producer = new Thread(() -> {
      try {
        for (int part = 0; part < 2; part++) {
          sleep(1500);
          send(fixture, last.subList(part * last.size() / 3, (part + 1) * last.size() / 3));
        }
      } catch (Throwable e) {
        producerFailure.set(e);
      }
    }, "producer");
    List<Long> counts = new CopyOnWriteArrayList<>();
    AtomicBoolean reading = new AtomicBoolean(true);
    Thread reader = new Thread(() -> {
      while (reading.get()) {
        counts.add(BronzeFixture.rows(spark, table));
        sleep(150);
      }
    }, "reader");
    SilverRebuild.Result rebuilt;
    try {
      reader.start();
      producer.start();
      rebuilt = new DeltaSilverRebuild(spark, config).run("silver.orders", OptionalLong.empty(), System.out);
      producer.join(120_000);
      assertThat(producerFailure.get()).isNull();
      send(fixture, last.subList(2 * last.size() / 3, last.size()));
      Map<String, List<String>> all = ShopReference.orders(generated);
      await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(2)).until(() -> {
        assertThat(silverFailure.get()).as("silver failed").isNull();
        assertThat(silver.isAlive()).as("silver runs").isTrue();
        return ShopReference.orders(spark, table).equals(all);
      });
    } finally {
      reading.set(false);
      reader.join(10_000);
      bronze.stop(); // stops every active query, silver's too
      silver.join(60_000);
    }
    assertThat(silverFailure.get()).as("silver failed").isNull();
    assertThat(counts).as("orders seen by readers").hasSizeGreaterThan(5).isSorted();
    assertThat(quarantinedIn(spark, quarantine)).isEqualTo(SilverMergeIT.malformed(generated,
        GeneratorOptions.ORDERS_TOPIC));
    assertThat(switching(spark, table)).as("the switch is over").isZero();
    assertThat(spark.sql("SHOW TBLPROPERTIES " + table).where("key = '" + SilverCheckpoints.PROPERTY + "'").first()
        .getString(1)).isEqualTo(rebuilt.checkpoint());
    assertThat(spark.sql("DESCRIBE HISTORY " + table).where("version > " + rebuilt.snapshot()
        + " AND userMetadata LIKE '%" + queryId(rebuilt.checkpoint()) + "%'").count())
        .as("commits of the running job after the switch").isPositive();
  }

  private static DeltaHistory history(SparkSession spark, io.tributary.common.lakehouse.TableAddress table) {
    return DeltaHistory.read(spark, table, StreamCommits.STREAM_ID);
  }

  private static long switching(SparkSession spark, String table) {
    return spark.sql("SHOW TBLPROPERTIES " + table).where("key = '" + SilverCheckpoints.SWITCHING + "'").count();
  }

  private static long quarantined(SparkSession spark, String lake) {
    return quarantinedIn(spark, lake + ".silver.quarantine");
  }

  private static long quarantinedIn(SparkSession spark, String quarantine) {
    return spark.sql("SELECT count(*), count(DISTINCT topic, `partition`, `offset`) FROM " + quarantine
        + " WHERE entity = 'orders'").collectAsList().stream()
        .peek(row -> assertThat(row.getLong(0)).as("quarantined once each").isEqualTo(row.getLong(1)))
        .mapToLong(row -> row.getLong(0)).sum();
  }

  /** Every row, exactly (also when it was written), sorted. */
  private static List<String> rows(SparkSession spark, String table) {
    return spark.sql("SELECT * FROM " + table).toJSON().collectAsList().stream().sorted().toList();
  }

  private static Table icebergTable(SparkSession spark, String table) throws Exception {
    return Spark3Util.loadIcebergTable(spark, table);
  }

  private static String queryId(String checkpoint) throws Exception {
    String metadata = Files.readString(Path.of(checkpoint, "metadata"));
    return metadata.replaceAll("(?s).*\"id\"\\s*:\\s*\"([^\"]+)\".*", "$1");
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
