package io.tributary.silver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.bronze.BronzeFixture;
import io.tributary.bronze.BronzeIngestJob;
import io.tributary.common.config.ConfigNames;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.SilverCheckpoints;
import io.tributary.common.lakehouse.StreamRuns;
import io.tributary.common.lakehouse.Tables;
import io.tributary.common.testing.CheckpointLogFiles;
import io.tributary.common.testing.SharedSpark;
import io.tributary.localstack.GeneratedRecord;
import io.tributary.localstack.GeneratorOptions;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.ShopEventGenerator;
import io.tributary.localstack.testing.SharedKafka;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A generated shop stream (Debezium customers with out-of-order updates, duplicates, deletes with tombstones,
 * snapshot reads, a truncate; JSON order events with duplicates; malformed records in both) through bronze into
 * silver in small batches: every silver table equals a reference computed here by replaying the good events in
 * sequence order, quarantine holds exactly the malformed records, a replayed batch changes nothing, and a rebuild
 * from all of bronze in one batch ends in the same tables.
 */
@ExtendWith({SharedSpark.class, SharedKafka.class})
public class SilverMergeIT {
  public static final String CUSTOMER_SCHEMA = "id BIGINT, name STRING, email STRING, country STRING, tier STRING,"
      + " credit_limit DECIMAL(10,2), created_at TIMESTAMP, updated_at TIMESTAMP";
  public static final String ORDER_SCHEMA = "order_id STRING, event_type STRING, customer_id BIGINT, status STRING,"
      + " amount DECIMAL(10,2), currency STRING, items INT, seq BIGINT, event_time TIMESTAMP";

  /** The shop's three entities, their tables suffixed; batches of {@code maxRows} bronze rows. */
  public static String entities(String suffix, long maxRows) {
    return "tributary.silver.entities {\n"
        + " customers" + suffix + " { source = bronze.customers, key = [id], table = silver.customers" + suffix
        + ", buckets = 4, max-rows-per-trigger = " + maxRows + ", max-files-per-trigger = " + maxFiles(maxRows)
        + ", schema = \"" + CUSTOMER_SCHEMA + "\" }\n"
        + " customer_history" + suffix + " { source = bronze.customers, key = [id], history = scd2,"
        + " table = silver.customer_history" + suffix + ", max-rows-per-trigger = " + maxRows
        + ", max-files-per-trigger = " + maxFiles(maxRows) + ", schema = \""
        + CUSTOMER_SCHEMA + "\" }\n"
        + " orders" + suffix + " { source = bronze.orders, decoder = json, key = [order_id], sequence = [seq],"
        + " event-time-field = event_time, table = silver.orders" + suffix + ", max-rows-per-trigger = " + maxRows
        + ", max-files-per-trigger = " + maxFiles(maxRows)
        + ", schema = \"" + ORDER_SCHEMA + "\" }\n}";
  }

  /** About as many files of a Delta bronze table (one per Kafka partition and batch of 150) as {@code maxRows}. */
  private static long maxFiles(long maxRows) {
    return Math.max(1, maxRows / 75);
  }

  /**
   * Generates the shop stream and sends each record, with its timestamp, to the fixture's "customers" or "orders"
   * topic (created with 2 partitions); returns what was generated, for the references.
   */
  public static List<GeneratedRecord> sendShopStream(BronzeFixture fixture, GeneratorOptions options)
      throws Exception {
    fixture.createTopics(2, "customers", "orders");
    List<GeneratedRecord> generated = new ArrayList<>();
    ShopEventGenerator.records(options).forEachRemaining(generated::add);
    send(fixture, generated);
    return generated;
  }

  /** Sends each generated record, with its timestamp, to the fixture's "customers" or "orders" topic. */
  public static void send(BronzeFixture fixture, List<GeneratedRecord> records) throws Exception {
    for (String name : List.of("customers", "orders")) {
      String topic = fixture.topic(name);
      String source = name.equals("customers") ? GeneratorOptions.CUSTOMERS_TOPIC : GeneratorOptions.ORDERS_TOPIC;
      fixture.send(name, records.stream().filter(r -> r.topic().equals(source))
          .map(r -> new ProducerRecord<>(topic, null, r.timestampMs(), r.key(), r.value())).toList());
    }
  }

  @Test
  void onceBeforeBronzeEverRanSaysSoInsteadOfWaiting(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) {
    TributaryConfig config = new BronzeFixture(broker, dir).config(Map.of("customers", "customers"),
        entities("", 100));
    // A continuous run waits for the table (MaintenanceWhileStreamingIT starts both at once); a run that is to end
    // when it has caught up has nothing to wait for.
    assertThatThrownBy(() -> new SilverMergeJob(spark, config).runUntilCaughtUp())
        .hasMessage("tributary.silver.entities.customer_history.source: bronze table " + config.catalog().name()
            + ".bronze.customers does not exist yet; run bronze first");
  }

  @Test
  void aSilverFormatThatDiffersFromTheExistingTableFailsNamingBoth(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    TributaryConfig iceberg = fixture.config(Map.of("customers", "customers"), entities("", 100));
    io.tributary.common.lakehouse.LakehouseSession.registerCatalog(spark, iceberg.catalog());
    spark.sql("CREATE NAMESPACE IF NOT EXISTS " + iceberg.catalog().name() + ".silver");
    spark.sql("CREATE TABLE " + iceberg.catalog().name() + ".silver.customer_history (id BIGINT) USING iceberg");
    TributaryConfig delta = fixture.config(Map.of("customers", "customers"), "tributary.silver.format = delta\n"
        + entities("", 100));
    assertThatThrownBy(() -> new SilverMergeJob(spark, delta).runUntilCaughtUp())
        .hasMessageContaining("tributary.silver.format: is delta, but silver.customer_history"
            + " (tributary.silver.entities.customer_history.table) exists as an Iceberg table "
            + iceberg.catalog().name() + ".silver.customer_history; silver would start a new, empty delta table"
            + " beside it. Keep silver.format = iceberg for it, or rebuild it under a new name");
  }

  /** The SQL name of a table of the config in its layer's format. */
  private static String sqlName(TributaryConfig config, String table) {
    TableName name = TableName.parseText(table);
    TableFormat format = name.namespace().equals("bronze") ? config.bronze().format() : config.silver().format();
    return new Tables(config.catalog()).sqlName(name, format);
  }

  /** The commits a table holds: Iceberg's snapshots, Delta's versions. */
  static long commits(SparkSession spark, TributaryConfig config, String table) {
    return TableName.parseText(table).namespace().equals("silver") && config.silver().format() == TableFormat.DELTA
        || TableName.parseText(table).namespace().equals("bronze") && config.bronze().format() == TableFormat.DELTA
        ? spark.sql("DESCRIBE HISTORY " + sqlName(config, table)).count()
        : spark.table(sqlName(config, table) + ".snapshots").count();
  }

  /** A Delta table's history, newest commit first. */
  private static Dataset<Row> history(SparkSession spark, TributaryConfig config, String table) {
    return io.delta.tables.DeltaTable.forPath(spark, new Tables(config.catalog()).deltaPath(TableName.parseText(table)))
        .history();
  }

  /** The batch ids of a silver table's stream commits. */
  private static List<String> committedBatches(SparkSession spark, TributaryConfig config, String table) {
    if (config.silver().format() == TableFormat.DELTA) {
      return history(spark, config, table).where("userMetadata IS NOT NULL")
          .selectExpr("from_json(userMetadata, 'map<string, string>')['tributary.batch-id']").distinct().as(Encoders.STRING())
          .collectAsList();
    }
    return spark.sql("SELECT DISTINCT summary['tributary.batch-id'] FROM " + sqlName(config, table)
        + ".snapshots WHERE summary['tributary.batch-id'] IS NOT NULL").as(Encoders.STRING()).collectAsList();
  }

  /** Iceberg throughout, and Delta throughout (tributary.format = delta): bronze, silver and quarantine. */
  @ParameterizedTest
  @EnumSource(TableFormat.class)
  void silverEqualsTheReplayedReferenceReplaysChangeNothingAndARebuildMatches(TableFormat format, SparkSession spark,
      LocalKafkaBroker broker, @TempDir Path dir) throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    List<GeneratedRecord> generated = sendShopStream(fixture, new GeneratorOptions(600, 1200, 400, 0.3, 0.05, 0.02,
        true, Instant.parse("2026-11-01T00:00:00Z"), Duration.ofHours(6), 17));

    // Small batches on both sides, so that late changes meet newer ones already merged in an earlier batch.
    TributaryConfig config = fixture.config(Map.of("customers", "customers", "orders", "orders"),
        "tributary.format = " + ConfigNames.of(format) + "\n"
        + "tributary.bronze.defaults.max-offsets-per-trigger = 150\n" + entities("", 200));
    // Silver starts with bronze (empty), as in a pipeline started together, so it follows bronze's commits in
    // small batches; a stream started later would load what bronze holds in one batch (tested at the end).
    new BronzeIngestJob(spark, config).createTables();
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    new BronzeIngestJob(spark, config).runUntilCaughtUp();
    new SilverMergeJob(spark, config).runUntilCaughtUp();

    assertThat(commits(spark, config, "silver.customers")).as("silver commits").isGreaterThan(4);
    Map<Long, List<String>> customers = ShopReference.customers(generated);
    assertThat(customers).hasSizeGreaterThan(10);
    assertThat(ShopReference.liveCustomers(spark, sqlName(config, "silver.customers"))).isEqualTo(customers);
    List<String> history = ShopReference.customerHistory(generated);
    assertThat(history).anyMatch(version -> version.contains(" t ")).anyMatch(version -> version.contains(" d "));
    assertThat(ShopReference.customerHistory(spark, sqlName(config, "silver.customer_history"))).isEqualTo(history);
    Map<String, List<String>> orders = ShopReference.orders(generated);
    assertThat(orders).hasSizeGreaterThan(100);
    assertThat(ShopReference.orders(spark, sqlName(config, "silver.orders"))).isEqualTo(orders);

    String quarantine = sqlName(config, "silver.quarantine");
    assertThat(quarantined(spark, quarantine)).isEqualTo(Map.of(
        "customers", malformed(generated, GeneratorOptions.CUSTOMERS_TOPIC),
        "customer_history", malformed(generated, GeneratorOptions.CUSTOMERS_TOPIC),
        "orders", malformed(generated, GeneratorOptions.ORDERS_TOPIC)));
    assertThat(spark.table(quarantine).selectExpr("reason").distinct().collectAsList().stream()
        .map(row -> row.getString(0)))
        .allMatch(reason -> List.of("value is not valid UTF-8", "value is not valid JSON", "unknown op 'x'",
            "missing key column id", "event time event_time: 'not a time' is not an ISO timestamp or epoch"
                + " milliseconds").contains(reason), "a known reason");

    // Compaction of bronze commits a replace snapshot (Delta: an OPTIMIZE), which the silver streams must pass over.
    if (format == TableFormat.DELTA) {
      spark.sql("OPTIMIZE " + sqlName(config, "bronze.customers")).collectAsList();
      assertThat(history(spark, config, "bronze.customers").select("operation").as(Encoders.STRING())
          .collectAsList()).contains("OPTIMIZE");
    } else {
      spark.sql("CALL " + config.catalog().name() + ".system.rewrite_data_files(table => 'bronze.customers',"
          + " options => map('min-input-files', '2', 'rewrite-all', 'true'))").collectAsList();
      assertThat(spark.sql("SELECT operation FROM " + sqlName(config, "bronze.customers") + ".snapshots")
          .as(Encoders.STRING()).collectAsList()).contains("replace");
    }

    // A crash after the MERGE commit and before the checkpoint's commit: Spark replays the last batch.
    long snapshotsBefore = commits(spark, config, "silver.customers");
    long quarantinedBefore = spark.table(quarantine).count();
    forgetLastCommit(SilverCheckpoints.configured(config, config.silver().entities().get("customers")));
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    assertThat(commits(spark, config, "silver.customers")).isEqualTo(snapshotsBefore);
    assertThat(spark.table(quarantine).count()).isEqualTo(quarantinedBefore);
    assertThat(ShopReference.liveCustomers(spark, sqlName(config, "silver.customers"))).isEqualTo(customers);

    // New tables of the same entities start with all of bronze in one batch (Iceberg: the initial load, batch -1;
    // Delta: the stream's first batch, the table as it was when the stream started).
    TributaryConfig rebuild = fixture.config(Map.of("customers", "customers", "orders", "orders"),
        "tributary.format = " + ConfigNames.of(format) + "\n" + entities("_rebuilt", 1_000_000));
    StreamRuns.Outcome loaded = new SilverMergeJob(spark, rebuild).runUntilCaughtUp();
    // What the run says it did: each entity read all of its bronze table, in the one batch of the initial load.
    long bronzeCustomers = spark.table(sqlName(config, "bronze.customers")).count();
    long bronzeOrders = spark.table(sqlName(config, "bronze.orders")).count();
    assertThat(loaded.streams()).extracting(StreamRuns.StreamRun::name, StreamRuns.StreamRun::batches,
        StreamRuns.StreamRun::records).containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("silver-customers_rebuilt", 1L, bronzeCustomers),
            org.assertj.core.groups.Tuple.tuple("silver-customer_history_rebuilt", 1L, bronzeCustomers),
            org.assertj.core.groups.Tuple.tuple("silver-orders_rebuilt", 1L, bronzeOrders));
    for (String table : List.of("customers", "customer_history", "orders")) {
      assertThat(committedBatches(spark, rebuild, "silver." + table + "_rebuilt")).as(table + " in one batch")
          .containsExactly(format == TableFormat.DELTA ? "0" : String.valueOf(InitialLoad.BATCH_ID));
      assertThat(content(spark, sqlName(rebuild, "silver." + table + "_rebuilt"))).as(table)
          .isEqualTo(content(spark, sqlName(config, "silver." + table)));
    }
    if (format == TableFormat.DELTA) {
      assertThat(content(spark, "silver.orders_rebuilt")).as("the Delta table by its name in the session catalog")
          .isEqualTo(content(spark, sqlName(rebuild, "silver.orders_rebuilt")));
    }
  }

  public static Map<String, Long> quarantined(SparkSession spark, String table) {
    Map<String, Long> counts = new java.util.TreeMap<>();
    for (Row row : spark.sql("SELECT entity, count(*) FROM " + table + " GROUP BY entity").collectAsList()) {
      counts.put(row.getString(0), row.getLong(1));
    }
    return counts;
  }

  public static long malformed(List<GeneratedRecord> generated, String topic) {
    return generated.stream().filter(r -> r.topic().equals(topic) && r.kind() == GeneratedRecord.Kind.MALFORMED)
        .count();
  }

  /** Every row but the time it was written, in a total order (rows may share key and sequence). */
  public static List<String> content(SparkSession spark, String table) {
    return spark.table(table).drop("_updated_at").toJSON().collectAsList().stream().sorted().toList();
  }

  static void forgetLastCommit(String checkpoint) throws IOException {
    Path commits = Path.of(checkpoint, "commits");
    CheckpointLogFiles.delete(commits.resolve(Long.toString(CheckpointLogFiles.lastBatch(commits))));
  }
}
