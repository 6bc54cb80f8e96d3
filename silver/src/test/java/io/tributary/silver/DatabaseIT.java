package io.tributary.silver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tributary.bronze.BronzeFixture;
import io.tributary.bronze.BronzeIngestJob;
import io.tributary.common.config.InvalidConfigException;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.DatabaseTables;
import io.tributary.common.lakehouse.Tables;
import io.tributary.common.testing.SharedSpark;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.testing.SharedKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * A whole database from one block: one bronze source with a topic pattern, one silver database block with a
 * template, per-table settings and exclusions, and one silver stream for all of its tables.
 */
@ExtendWith({SharedSpark.class, SharedKafka.class})
class DatabaseIT {

  /** The bronze source of every topic of the fixture's shop server, and the database block on top of it. */
  private static String config(BronzeFixture fixture, String database) {
    return "tributary.bronze.sources.shop { pattern = \"" + fixture.topic("shop").replace(".", "\\\\.")
        + "\\\\..*\", table = \"bronze.shop\" }\n"
        + "tributary.silver.databases.shop { source = \"bronze.shop\", table = \"silver.shop_{schema}_{table}\"\n"
        + database + "\n}\n";
  }

  /** In either table format, with the recovery of one of the tables at its end. */
  @ParameterizedTest
  @EnumSource(TableFormat.class)
  void oneBlockKeepsEveryTableWithItsOwnSettings(TableFormat format, SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    SmallTableEvents customers = SmallTableEvents.keyed(fixture.topic("shop.public.customers"));
    SmallTableEvents orders = SmallTableEvents.keyed(fixture.topic("shop.public.orders"));
    SmallTableEvents items = SmallTableEvents.keyed(fixture.topic("shop.inventory.items"));
    SmallTableEvents audit = SmallTableEvents.keyed(fixture.topic("shop.public.audit_log"));
    SmallTableEvents notes = SmallTableEvents.keyless(fixture.topic("shop.public.notes"));
    fixture.createTopics(1, "shop.public.customers", "shop.public.orders", "shop.inventory.items",
        "shop.public.audit_log", "shop.public.notes", "shop.public.legacy", "shop.public.legacy_two");
    TributaryConfig config = fixture.config(Map.of(), config(fixture,
        "exclude = [\"public\\\\.audit_.*\"]\n"
            + "tables { \"inventory.items\" { history = scd2 }, \"public.orders\" { delete-mode = hard } }")
        + "tributary.format = " + format.name().toLowerCase(java.util.Locale.ROOT) + "\n");
    String lake = config.catalog().name();

    send(fixture, customers, List.of(
        customers.change("r", null, customers.row(1, "Ada", 1), 10),
        customers.change("r", null, customers.row(2, "Bo", 2), 11),
        customers.change("r", null, customers.row(3, "Cy", 3), 12),
        customers.change("u", customers.row(2, "Bo", 2), customers.row(2, "Bob", 20), 20),
        customers.change("d", customers.row(3, "Cy", 3), null, 30)), 1, 2, 3, 2, 3);
    send(fixture, orders, List.of(
        orders.change("r", null, orders.row(1, "first", 1), 10),
        orders.change("r", null, orders.row(2, "second", 2), 11),
        orders.change("d", orders.row(1, "first", 1), null, 40)), 1, 2, 1);
    send(fixture, items, List.of(
        items.change("r", null, items.row(7, "pen", 1), 10),
        items.change("u", items.row(7, "pen", 1), items.row(7, "pen", 2), 50),
        items.change("u", items.row(7, "pen", 2), items.row(7, "red pen", 2), 60)), 7, 7, 7);
    send(fixture, audit, List.of(audit.change("c", null, audit.row(1, "login", 1), 10)), 1);
    send(fixture, notes, List.of(notes.change("c", null, notes.row(1, "no key", 1), 10)), 1);
    fixture.send("shop.public.legacy", List.of(new ProducerRecord<>(fixture.topic("shop.public.legacy"),
        "k".getBytes(StandardCharsets.UTF_8), "a plain string, not a change event".getBytes(StandardCharsets.UTF_8))));
    fixture.send("shop.public.legacy_two", List.of(new ProducerRecord<>(fixture.topic("shop.public.legacy_two"),
        "k".getBytes(StandardCharsets.UTF_8), "{\"plain\": true}".getBytes(StandardCharsets.UTF_8))));

    new BronzeIngestJob(spark, config).runUntilCaughtUp();
    new SilverMergeJob(spark, config).runUntilCaughtUp();

    assertThat(tables(spark, config)).containsExactly("quarantine", "shop_inventory_items", "shop_public_customers",
        "shop_public_orders");
    assertThat(rows(spark, silver(config, "shop_public_customers"), "id, name, qty, _is_deleted"))
        .containsExactly("1|Ada|1|false", "2|Bob|20|false", "3|Cy|3|true");
    assertThat(rows(spark, silver(config, "shop_public_orders"), "id, name, qty, _is_deleted"))
        .containsExactly("2|second|2|false");
    assertThat(rows(spark, silver(config, "shop_inventory_items"), "id, name, qty, _is_current"))
        .containsExactly("7|pen|1|false", "7|pen|2|false", "7|red pen|2|true");
    assertThat(spark.table(silver(config, "shop_public_customers")).schema().toDDL())
        .startsWith(org.apache.spark.sql.types.StructType.fromDDL(SmallTableEvents.SPARK_COLUMNS).toDDL());
    // The one table without a primary key is not kept; its change stays in bronze.
    assertThat(spark.sql("SELECT count(*) FROM " + bronze(config, "shop") + " WHERE topic = '" + notes.topic() + "'")
        .first().getLong(0)).isEqualTo(1);
    // Topics of the pattern that are not Debezium: quarantined with the reason (each table its own record of the
    // batch, so the second is not taken for a replay of the first), and the rest of the database went on.
    List<Row> quarantined = spark.sql("SELECT entity, stage, reason, topic FROM " + silver(config, "quarantine")
        + " ORDER BY entity").collectAsList();
    assertThat(quarantined).hasSize(2);
    assertThat(quarantined.get(0).getString(0)).isEqualTo("shop.public.legacy");
    assertThat(quarantined.get(1).getString(0)).isEqualTo("shop.public.legacy_two");
    assertThat(quarantined.get(0).getString(2)).contains("tributary.silver.databases.shop.tables.\"public.legacy\""
        + ".schema: is missing");
    assertThat(DatabaseTables.of(spark, config, config.silver().databases().get("shop"))).containsOnlyKeys(
        new io.tributary.common.config.TableName("silver", "shop_inventory_items"),
        new io.tributary.common.config.TableName("silver", "shop_public_customers"),
        new io.tributary.common.config.TableName("silver", "shop_public_orders"));

    // A table that appears later joins on the next run; the others take their next changes.
    SmallTableEvents refunds = SmallTableEvents.keyed(fixture.topic("shop.public.refunds"));
    fixture.createTopics(1, "shop.public.refunds");
    send(fixture, refunds, List.of(refunds.change("c", null, refunds.row(5, "refund", 5), 70)), 5);
    send(fixture, customers, List.of(customers.change("c", null, customers.row(4, "Di", 4), 71)), 4);
    new BronzeIngestJob(spark, config).runUntilCaughtUp();
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    assertThat(rows(spark, silver(config, "shop_public_refunds"), "id, name, qty, _is_deleted"))
        .containsExactly("5|refund|5|false");
    assertThat(rows(spark, silver(config, "shop_public_customers"), "id, name")).containsExactly("1|Ada", "2|Bob",
        "3|Cy", "4|Di");
    assertThat(spark.table(silver(config, "quarantine")).count()).as("the legacy records once").isEqualTo(2);

    // status: the database's one stream, caught up, and a line per table with its topic and rows.
    assertThat(SilverStatus.of(spark, config)).filteredOn(state -> state.name().equals("silver-database-shop"))
        .singleElement().satisfies(state -> assertThat(state.behind()).isZero());
    List<String> lines = SilverStatus.databaseTables(spark, config);
    assertThat(lines).hasSize(5);
    assertThat(lines.get(0)).isEqualTo("database shop: 4 tables in " + (format == TableFormat.DELTA
        ? "spark_catalog" : lake) + ".silver");
    assertThat(lines).anySatisfy(line -> assertThat(line).startsWith("  silver.shop_public_customers ")
        .contains(" from " + customers.topic() + ": 4 rows, last commit 20"));
    assertThat(lines).anySatisfy(line -> assertThat(line).startsWith("  silver.shop_public_orders ")
        .contains(" from " + orders.topic() + ": 1 row, last commit 20"));
    assertThat(lines).anySatisfy(line -> assertThat(line).startsWith("  silver.shop_public_refunds ")
        .contains(" from " + refunds.topic() + ": 1 row, last commit 20"));

    // One table of a database goes back to an earlier snapshot or version (a rollback: a rebuild from it), its
    // topic's later changes applied again, the other tables untouched; from a batch of the database's stream and
    // from its first.
    String customersTable = silver(config, "shop_public_customers");
    String ordersTable = silver(config, "shop_public_orders");
    List<Long> written = streamCommits(spark, customersTable, format);
    long firstBatch = written.get(0);
    long beforeTheMistake = written.get(written.size() - 1);
    spark.sql("UPDATE " + customersTable + " SET name = 'broken'");
    send(fixture, customers, List.of(customers.change("c", null, customers.row(5, "Ed", 5), 80),
        customers.change("u", customers.row(2, "Bob", 20), customers.row(2, "Bobby", 21), 81)), 5, 2);
    new BronzeIngestJob(spark, config).runUntilCaughtUp();
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    assertThat(rows(spark, customersTable, "id, name")).containsExactly("1|broken", "2|Bobby", "3|broken",
        "4|broken", "5|Ed");
    List<String> ordersBefore = rows(spark, ordersTable, "*");
    List<String> expected = List.of("1|Ada|1|false", "2|Bobby|21|false", "3|Cy|3|true", "4|Di|4|false",
        "5|Ed|5|false");
    for (long target : new long[] {beforeTheMistake, firstBatch}) {
      java.io.ByteArrayOutputStream output = new java.io.ByteArrayOutputStream();
      rebuild(spark, config, "silver.shop_public_customers", java.util.OptionalLong.of(target),
          new java.io.PrintStream(output, true, StandardCharsets.UTF_8));
      assertThat(output.toString(StandardCharsets.UTF_8)).contains("as of "
          + (format == TableFormat.DELTA ? "version " : "snapshot ") + target);
      assertThat(rows(spark, customersTable, "id, name, qty, _is_deleted")).as("from " + target)
          .isEqualTo(expected);
    }
    assertThat(rows(spark, ordersTable, "*")).isEqualTo(ordersBefore);
    assertThat(DatabaseTables.of(spark, config, config.silver().databases().get("shop")).keySet())
        .extracting(Object::toString).containsExactlyInAnyOrder("silver.shop_inventory_items",
            "silver.shop_public_customers", "silver.shop_public_orders", "silver.shop_public_refunds");
    assertThat(tables(spark, config)).as("the shadows are gone").doesNotContain("shop_public_customers__rebuild");
    // The database's stream goes on with every table, the rolled-back one included, nothing applied twice.
    send(fixture, customers, List.of(customers.change("u", customers.row(1, "Ada", 1), customers.row(1, "Ada", 9),
        90)), 1);
    send(fixture, orders, List.of(orders.change("c", null, orders.row(3, "third", 3), 90)), 3);
    new BronzeIngestJob(spark, config).runUntilCaughtUp();
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    assertThat(rows(spark, customersTable, "id, name, qty, _is_deleted")).containsExactly("1|Ada|9|false",
        "2|Bobby|21|false", "3|Cy|3|true", "4|Di|4|false", "5|Ed|5|false");
    assertThat(rows(spark, ordersTable, "id, name, qty, _is_deleted"))
        .containsExactly("2|second|2|false", "3|third|3|false");
    assertThat(spark.table(silver(config, "quarantine")).count()).as("the legacy records, still once").isEqualTo(2);

    // One table's records removed from bronze by mistake: re-ingested from Kafka by naming its topic alone, then its
    // silver table rebuilt from bronze.
    String bronzeShop = bronze(config, "shop");
    List<String> bronzeBefore = rows(spark, bronzeShop, "topic, `partition`, `offset`, hex(key), hex(value)");
    spark.sql("DELETE FROM " + bronzeShop + " WHERE topic = '" + orders.topic() + "'");
    io.tributary.bronze.BronzeReingest.Result reingested = new io.tributary.bronze.BronzeReingest(spark, config)
        .run("shop", new io.tributary.bronze.BronzeReingest.Bounds.Offsets("{\"" + orders.topic() + "\":{\"0\":0}}",
            java.util.Optional.empty()), System.out);
    assertThat(reingested.added()).isEqualTo(4);
    assertThat(rows(spark, bronzeShop, "topic, `partition`, `offset`, hex(key), hex(value)")).isEqualTo(bronzeBefore);
    rebuild(spark, config, "silver.shop_public_orders", java.util.OptionalLong.empty(), System.out);
    assertThat(rows(spark, ordersTable, "id, name, qty, _is_deleted"))
        .containsExactly("2|second|2|false", "3|third|3|false");
  }

  /** A rebuild of one table of a database, in the config's silver format. */
  private static SilverRebuild.Result rebuild(SparkSession spark, TributaryConfig config, String table,
      java.util.OptionalLong from, java.io.PrintStream out) {
    return config.silver().format() == TableFormat.DELTA
        ? new DeltaDatabaseTableRebuild(spark, config).run(table, from, out)
        : new DatabaseTableRebuild(spark, config).run(table, from, out);
  }

  /** The snapshots (Iceberg) or versions (Delta) of a table that a stream's batch wrote, oldest first. */
  private static List<Long> streamCommits(SparkSession spark, String table, TableFormat format) {
    String batch = io.tributary.common.lakehouse.StreamCommits.BATCH_ID;
    org.apache.spark.sql.Dataset<Row> commits = format == TableFormat.DELTA
        ? spark.sql("DESCRIBE HISTORY " + table).where("userMetadata LIKE '%" + batch + "%'").orderBy("version")
            .select("version")
        : spark.sql("SELECT snapshot_id FROM " + table + ".snapshots WHERE summary['" + batch + "'] IS NOT NULL"
            + " ORDER BY committed_at");
    return commits.collectAsList().stream().map(row -> row.getLong(0)).toList();
  }

  @Test
  void oneTableIsRebuiltWhileTheDatabaseStreamGoesOn(SparkSession spark, LocalKafkaBroker broker, @TempDir Path dir)
      throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    SmallTableEvents first = SmallTableEvents.keyed(fixture.topic("shop.public.a"));
    SmallTableEvents second = SmallTableEvents.keyed(fixture.topic("shop.public.b"));
    fixture.createTopics(1, "shop.public.a", "shop.public.b");
    TributaryConfig config = fixture.config(Map.of(), config(fixture, "trigger = \"300 ms\"")
        + "tributary.bronze.defaults.trigger = \"300 ms\"\n");
    String lake = config.catalog().name();
    Map<Long, String> expectedA = new java.util.concurrent.ConcurrentSkipListMap<>();
    Map<Long, String> expectedB = new java.util.concurrent.ConcurrentSkipListMap<>();
    List<byte[]> snapshot = new ArrayList<>();
    long[] ids = new long[30];
    for (int id = 1; id <= 30; id++) {
      snapshot.add(first.change("r", null, first.row(id, "a" + id, 0), id));
      ids[id - 1] = id;
      expectedA.put((long) id, "a" + id + "|0");
    }
    send(fixture, first, snapshot, ids);
    send(fixture, second, List.of(second.change("r", null, second.row(1, "b1", 0), 1)), 1);
    expectedB.put(1L, "b1|0");
    new BronzeIngestJob(spark, config).createTables();
    BronzeFixture.Running bronze = BronzeFixture.runInBackground(spark, config);
    AtomicReference<Throwable> silverFailure = new AtomicReference<>();
    Thread silver = SilverInBackground.start(spark, config, silverFailure);
    AtomicReference<Throwable> producerFailure = new AtomicReference<>();
    java.util.concurrent.atomic.AtomicBoolean rebuilt = new java.util.concurrent.atomic.AtomicBoolean();
    Thread producer = new Thread(() -> {
      try {
        // Changes keep coming during the rebuild and for a few rounds after it.
        int last = Integer.MAX_VALUE;
        for (int round = 1; round <= last; round++) {
          if (rebuilt.get() && last == Integer.MAX_VALUE) {
            last = round + 4;
          }
          long id = 1 + (round * 7) % 30;
          send(fixture, first, List.of(first.change("u", first.row(id, "a" + id, round - 1),
              first.row(id, "a" + id, round), 100 + round)), id);
          expectedA.put(id, "a" + id + "|" + round);
          send(fixture, second, List.of(second.change("c", null, second.row(100 + round, "b", round), 100 + round)),
              100 + round);
          expectedB.put(100L + round, "b|" + round);
          Thread.sleep(700);
        }
      } catch (Throwable e) {
        producerFailure.set(e);
      }
    }, "producer");
    SilverRebuild.Result result;
    try {
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
        assertThat(silverFailure.get()).isNull();
        assertThat(BronzeFixture.rows(spark, lake + ".silver.shop_public_a")).isEqualTo(30);
      });
      producer.start();
      java.io.ByteArrayOutputStream output = new java.io.ByteArrayOutputStream();
      result = new DatabaseTableRebuild(spark, config).run("silver.shop_public_a",
          new java.io.PrintStream(output, true, StandardCharsets.UTF_8));
      rebuilt.set(true);
      System.out.print(output);
      assertThat(result.checkpoint()).endsWith("databases.shop");
      assertThat(result.rows()).as("the rows of the switched snapshot").isEqualTo(spark.sql("SELECT count(*) FROM "
          + lake + ".silver.shop_public_a VERSION AS OF " + result.snapshot()).first().getLong(0));
      producer.join(120_000);
      assertThat(producerFailure.get()).isNull();
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
        assertThat(silverFailure.get()).as("silver failed").isNull();
        assertThat(rows(spark, lake + ".silver.shop_public_a", "id, concat(name, '|', qty)")).as("a")
            .isEqualTo(expectedA.entrySet().stream().map(e -> e.getKey() + "|" + e.getValue()).sorted().toList());
        assertThat(rows(spark, lake + ".silver.shop_public_b", "id, concat(name, '|', qty)")).as("b")
            .isEqualTo(expectedB.entrySet().stream().map(e -> e.getKey() + "|" + e.getValue()).sorted().toList());
      });
      assertThat(java.util.Arrays.stream(spark.streams().active()).map(StreamingQuery::name)
          .filter(name -> name.startsWith("silver")).toList()).containsExactly("silver-database-shop");
    } finally {
      rebuilt.set(true);
      producer.join(60_000);
      bronze.stop();
      silver.join(60_000);
    }
    assertThat(silverFailure.get()).isNull();
    var properties = spark.sql("SHOW TBLPROPERTIES " + lake + ".silver.shop_public_a").collectAsList().stream()
        .collect(java.util.stream.Collectors.toMap(row -> row.getString(0), row -> row.getString(1)));
    assertThat(properties).containsEntry(DatabaseTables.DATABASE, "shop")
        .containsEntry(DatabaseTables.SOURCE_TOPIC, first.topic())
        .doesNotContainKey(io.tributary.common.lakehouse.SilverCheckpoints.SWITCHING)
        .doesNotContainKey(io.tributary.common.lakehouse.SilverCheckpoints.PROPERTY);
    // The database's stream went on committing to the rebuilt table after the switch.
    assertThat(spark.sql("SELECT count(*) FROM " + lake + ".silver.shop_public_a.snapshots WHERE summary['"
        + io.tributary.common.lakehouse.StreamCommits.STREAM_ID + "'] LIKE '%/silver.shop_public_a' AND committed_at"
        + " > (SELECT committed_at FROM " + lake + ".silver.shop_public_a.snapshots WHERE snapshot_id = "
        + result.snapshot() + ")").first().getLong(0)).as("commits after the switch").isPositive();
  }

  @Test
  void aBatchReplayedAfterACrashBetweenTwoTablesIsAppliedOnceToEach(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    SmallTableEvents first = SmallTableEvents.keyed(fixture.topic("shop.public.a"));
    SmallTableEvents second = SmallTableEvents.keyed(fixture.topic("shop.public.b"));
    fixture.createTopics(1, "shop.public.a", "shop.public.b");
    TributaryConfig strict = fixture.config(Map.of(), config(fixture, ""));
    String lake = strict.catalog().name();
    send(fixture, first, List.of(first.change("r", null, first.row(1, "one", 1), 10)), 1);
    send(fixture, second, List.of(second.change("r", null, second.row(1, "one", 1), 10)), 1);
    new BronzeIngestJob(spark, strict).runUntilCaughtUp();
    new SilverMergeJob(spark, strict).runUntilCaughtUp();

    // The next batch: a good change for table a, then 25 records of table b that are not JSON. Table a commits,
    // then b's share of quarantined records fails the batch, as a crash between the two commits would.
    send(fixture, first, List.of(first.change("u", first.row(1, "one", 1), first.row(1, "uno", 2), 20)), 1);
    List<ProducerRecord<byte[], byte[]>> broken = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      broken.add(new ProducerRecord<>(second.topic(), second.key(i), ("{broken " + i).getBytes(StandardCharsets.UTF_8)));
    }
    fixture.send("shop.public.b", broken);
    new BronzeIngestJob(spark, strict).runUntilCaughtUp();
    assertThatThrownBy(() -> new SilverMergeJob(spark, strict).runUntilCaughtUp()).hasStackTraceContaining(
        "more than tributary.silver.databases.shop.tables.\"public.b\".max-quarantine-ratio");
    long snapshotsOfA = snapshots(spark, lake + ".silver.shop_public_a");
    assertThat(rows(spark, lake + ".silver.shop_public_a", "id, name")).containsExactly("1|uno");

    // Run again with b allowed to quarantine them: a's commit is recognised and skipped, b's records land once.
    TributaryConfig lenient = fixture.config(Map.of(), config(fixture,
        "tables { \"public.b\" { max-quarantine-ratio = 1 } }"));
    new SilverMergeJob(spark, lenient).runUntilCaughtUp();
    new SilverMergeJob(spark, lenient).runUntilCaughtUp();
    assertThat(snapshots(spark, lake + ".silver.shop_public_a")).as("a's commits").isEqualTo(snapshotsOfA);
    assertThat(rows(spark, lake + ".silver.shop_public_a", "id, name")).containsExactly("1|uno");
    assertThat(spark.sql("SELECT count(*), count(DISTINCT offset) FROM " + lake + ".silver.quarantine WHERE entity ="
        + " 'shop.public.b'").first().toString()).isEqualTo("[25,25]");
  }

  @Test
  void aContinuousRunWaitsForItsFirstTopicAndKeepsNewTablesWithOneStream(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    TributaryConfig config = fixture.config(Map.of(), config(fixture, "trigger = \"300 ms\"")
        + "tributary.bronze.defaults.trigger = \"300 ms\"\n");
    String lake = config.catalog().name();
    AtomicReference<Throwable> silverFailure = new AtomicReference<>();
    // No topic matches yet and bronze has no table: the silver job waits instead of failing.
    Thread silver = SilverInBackground.start(spark, config, silverFailure);
    BronzeFixture.Running bronze = BronzeFixture.runInBackground(spark, config);
    try {
      Thread.sleep(3_000);
      assertThat(silverFailure.get()).isNull();
      assertThat(silver.isAlive()).isTrue();
      SmallTableEvents first = SmallTableEvents.keyed(fixture.topic("shop.public.first"));
      fixture.createTopics(1, "shop.public.first");
      send(fixture, first, List.of(first.change("c", null, first.row(1, "one", 1), 10)), 1);
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
        assertThat(silverFailure.get()).isNull();
        assertThat(BronzeFixture.rows(spark, lake + ".silver.shop_public_first")).isEqualTo(1);
      });
      SmallTableEvents second = SmallTableEvents.keyed(fixture.topic("shop.public.second"));
      fixture.createTopics(1, "shop.public.second");
      send(fixture, second, List.of(second.change("c", null, second.row(2, "two", 2), 10)), 2);
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
        assertThat(silverFailure.get()).isNull();
        assertThat(BronzeFixture.rows(spark, lake + ".silver.shop_public_second")).isEqualTo(1);
      });
      assertThat(java.util.Arrays.stream(spark.streams().active()).map(StreamingQuery::name)
          .filter(name -> name.startsWith("silver")).toList()).containsExactly("silver-database-shop");
    } finally {
      bronze.stop(); // stops every active query, silver's too
      silver.join(60_000);
    }
    assertThat(silverFailure.get()).isNull();
  }

  @Test
  void twoTopicsTheTemplateGivesOneNameAreRefusedNamingBoth(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    SmallTableEvents lower = SmallTableEvents.keyed(fixture.topic("shop.public.orders"));
    SmallTableEvents upper = SmallTableEvents.keyed(fixture.topic("shop.PUBLIC.orders"));
    fixture.createTopics(1, "shop.public.orders", "shop.PUBLIC.orders");
    TributaryConfig config = fixture.config(Map.of(), config(fixture, ""));
    send(fixture, lower, List.of(lower.change("c", null, lower.row(1, "lower", 1), 10)), 1);
    send(fixture, upper, List.of(upper.change("c", null, upper.row(1, "upper", 1), 10)), 1);
    new BronzeIngestJob(spark, config).runUntilCaughtUp();
    assertThatThrownBy(() -> new SilverMergeJob(spark, config).runUntilCaughtUp()).hasStackTraceContaining(
        "tributary.silver.databases.shop.table: topics " + upper.topic() + " and " + lower.topic()
            + " both become table silver.shop_public_orders");
  }

  @Test
  void changesWhoseKeyNoLongerHoldsTheTablesKeyAreQuarantinedSayingSo(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    SmallTableEvents people = SmallTableEvents.keyed(fixture.topic("shop.public.people"));
    fixture.createTopics(1, "shop.public.people");
    TributaryConfig config = fixture.config(Map.of(), config(fixture, ""));
    String lake = config.catalog().name();
    send(fixture, people, List.of(people.change("r", null, people.row(1, "Ada", 1), 10),
        people.change("r", null, people.row(2, "Bo", 2), 11)), 1, 2);
    new BronzeIngestJob(spark, config).runUntilCaughtUp();
    new SilverMergeJob(spark, config).runUntilCaughtUp();

    // The source's primary key widens to (id, name): it still holds silver's key, so the change applies. Then it
    // becomes (name) alone: merged by id, rows the source keeps apart could fold into one, so those changes go to
    // quarantine with the reason and what to do, and the stream goes on.
    var widened = people.row(1, "Ada", 10);
    var renamed = people.row(2, "Bo", 20);
    fixture.send("shop.public.people", List.of(
        new ProducerRecord<>(people.topic(), people.key(widened, "id", "name"),
            people.change("u", people.row(1, "Ada", 1), widened, 20)),
        new ProducerRecord<>(people.topic(), people.key(renamed, "name"),
            people.change("u", people.row(2, "Bo", 2), renamed, 21))));
    new BronzeIngestJob(spark, config).runUntilCaughtUp();
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    assertThat(rows(spark, lake + ".silver.shop_public_people", "id, name, qty")).containsExactly("1|Ada|10",
        "2|Bo|2");
    List<Row> quarantined = spark.sql("SELECT reason, offset FROM " + lake + ".silver.quarantine").collectAsList();
    assertThat(quarantined).singleElement().satisfies(row -> {
      assertThat(row.getString(0)).isEqualTo("the source table's primary key is now (name), which does not hold"
          + " silver's key (id): merged by the old key, rows the source keeps apart could fold into one. Name the key"
          + " in tributary.silver.databases.shop.tables.\"public.people\".key and rebuild " + lake
          + ".silver.shop_public_people");
      assertThat(row.getLong(1)).isEqualTo(3);
    });
  }

  private static void send(BronzeFixture fixture, SmallTableEvents table, List<byte[]> values, long... ids)
      throws Exception {
    List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
    for (int i = 0; i < values.size(); i++) {
      records.add(new ProducerRecord<>(table.topic(), table.key(ids[i]), values.get(i)));
    }
    String name = table.topic().substring(table.topic().indexOf('.') + 1);
    fixture.send(name, records);
  }

  /** The silver tables, in the config's silver format. */
  private static List<String> tables(SparkSession spark, TributaryConfig config) {
    if (config.silver().format() == TableFormat.DELTA) {
      return io.tributary.common.lakehouse.DeltaTableNames.in(spark, new Tables(config.catalog()), "silver").stream()
          .map(io.tributary.common.config.TableName::table).sorted().toList();
    }
    return spark.sql("SHOW TABLES IN " + config.catalog().name() + ".silver").collectAsList().stream()
        .map(row -> row.getString(row.fieldIndex("tableName"))).sorted().toList();
  }

  /** How SQL names silver table {@code table} in the config's silver format. */
  private static String silver(TributaryConfig config, String table) {
    return new Tables(config.catalog()).sqlName(new io.tributary.common.config.TableName("silver", table),
        config.silver().format());
  }

  private static String bronze(TributaryConfig config, String table) {
    return new Tables(config.catalog()).sqlName(new io.tributary.common.config.TableName("bronze", table),
        config.bronze().format());
  }

  /** Each row's values joined by '|', bytes (such as _seq_bytes) in hex so that equal rows print alike. */
  private static List<String> rows(SparkSession spark, String table, String columns) {
    return spark.sql("SELECT " + columns + " FROM " + table).collectAsList().stream()
        .map(row -> java.util.stream.IntStream.range(0, row.size()).mapToObj(i -> row.get(i) instanceof byte[] bytes
            ? java.util.HexFormat.of().formatHex(bytes) : String.valueOf(row.get(i)))
            .collect(java.util.stream.Collectors.joining("|")))
        .sorted().toList();
  }

  private static long snapshots(SparkSession spark, String table) {
    return spark.sql("SELECT count(*) FROM " + table + ".snapshots").first().getLong(0);
  }
}
