package io.tributary.gold;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.Tables;
import io.tributary.common.testing.SharedSpark;
import io.tributary.localstack.GeneratorOptions;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The shop's gold models (gold/models) on silver tables built by the real silver job: each model's table equals a
 * result computed here in Java from the silver rows; runs are idempotent per interval and a backfill equals the
 * day-by-day runs; a failing test or an unknown table stops a run with the table untouched.
 */
@ExtendWith(SharedSpark.class)
class GoldModelsIT {
  private static final Instant START = Instant.parse("2026-11-01T00:00:00Z");
  private static final List<String> MODELS =
      List.of("daily_revenue", "orders_by_status", "customer_lifetime_value", "country_value");

  @TempDir static Path root;
  private static ShopLakehouse lakehouse;
  private static SparkSession spark;

  @BeforeAll
  static void silver() throws Exception {
    spark = SharedSpark.session();
    lakehouse = new ShopLakehouse(spark, root);
    // Four days of a small shop: 2,000 order events from 60 customers, customer changes with deletes and
    // out-of-order updates, duplicates, and a few malformed records that silver quarantines.
    lakehouse.load(new GeneratorOptions(2000, 400, 60, 0.2, 0.02, 0.01, false, START, Duration.ofDays(4), 7));
  }

  private static List<ModelRun> run(TributaryConfig config, Interval interval) {
    ModelGraph graph = ModelGraph.load(Path.of(config.gold().models()));
    GoldRunner runner = new GoldRunner(spark, config);
    return runner.run(runner.plan(graph.inOrder(), interval), line -> { });
  }

  private static String table(String namespace, String model) {
    return ShopLakehouse.CATALOG + "." + namespace + "." + model;
  }

  /** The config of gold tables in {@code namespace} (suffixed _delta for Delta) in {@code format}. */
  private static TributaryConfig config(String namespace, TableFormat format) {
    return lakehouse.config(namespace + (format == TableFormat.DELTA ? "_delta" : ""), ShopLakehouse.MODELS, format);
  }

  /** The SQL name of a model's gold table. */
  private static String table(TributaryConfig config, String model) {
    return new Tables(config.catalog()).sqlName(config.gold().table(model), config.gold().format());
  }

  /** The commits of a gold table: Iceberg snapshots, Delta versions. */
  private static long commits(TributaryConfig config, String model) {
    return config.gold().format() == TableFormat.DELTA ? deltaHistory(config, model).count()
        : snapshots(table(config, model));
  }

  private static Dataset<Row> deltaHistory(TributaryConfig config, String model) {
    return io.delta.tables.DeltaTable.forPath(spark, new Tables(config.catalog()).deltaPath(config.gold()
        .table(model))).history();
  }

  /** The lineage of a gold table's newest commit. */
  private static Lineage newestLineage(TributaryConfig config, String model) {
    if (config.gold().format() == TableFormat.DELTA) {
      return Lineage.of(deltaHistory(config, model).orderBy(org.apache.spark.sql.functions.col("version").desc())
          .first().<String>getAs("userMetadata")).orElseThrow();
    }
    return Lineage.of(icebergTable(table(config, model)).currentSnapshot()).orElseThrow();
  }

  /** The days silver's orders cover. */
  private static Interval allDays() {
    Row range = spark.sql("SELECT min(CAST(event_time AS DATE)), max(CAST(event_time AS DATE)) FROM "
        + ShopLakehouse.CATALOG + ".silver.orders").first();
    return Interval.days(range.getDate(0).toLocalDate(), range.getDate(1).toLocalDate());
  }

  /** A whole table as sorted JSON lines, for comparing two tables or two states of one. */
  private static List<String> content(String table) {
    return spark.table(table).toJSON().collectAsList().stream().sorted().toList();
  }

  private static List<Row> silverOrders() {
    return spark.table(ShopLakehouse.CATALOG + ".silver.orders").where("NOT _is_deleted").collectAsList();
  }

  private static LocalDate day(Row row, String column) {
    return row.getTimestamp(row.fieldIndex(column)).toInstant().atZone(ZoneOffset.UTC).toLocalDate();
  }

  private static BigDecimal amount(Row row) {
    return row.getDecimal(row.fieldIndex("amount"));
  }

  private static String text(Row row, String column) {
    return row.getString(row.fieldIndex(column));
  }

  /** Rows of a table as "key columns -> value columns" strings. */
  private static Map<String, String> rows(String table, String keys, String values) {
    Map<String, String> rows = new TreeMap<>();
    for (Row row : spark.sql("SELECT concat_ws('|', " + keys + "), concat_ws(' ', " + values + ") FROM " + table)
        .collectAsList()) {
      assertThat(rows.put(row.getString(0), row.getString(1))).as("duplicate key %s", row.getString(0)).isNull();
    }
    return rows;
  }

  @ParameterizedTest
  @EnumSource(TableFormat.class)
  void everyShopModelEqualsAResultComputedFromSilver(TableFormat format) {
    TributaryConfig config = config("gold_expected", format);
    Interval interval = allDays();
    List<ModelRun> runs = run(config, interval);
    assertThat(runs.stream().map(run -> run.model().name())).containsExactly("customer_lifetime_value",
        "country_value", "daily_revenue", "orders_by_status");

    List<Row> orders = silverOrders();
    Map<String, BigDecimal[]> revenue = new TreeMap<>();
    Map<String, BigDecimal[]> byStatus = new TreeMap<>();
    Map<String, List<Row>> deliveredByCustomer = new TreeMap<>();
    for (Row order : orders) {
      String status = text(order, "status");
      add(byStatus.computeIfAbsent(day(order, "event_time") + "|" + status, k -> zeros(2)), BigDecimal.ONE,
          amount(order));
      if (status.equals("delivered")) {
        String key = day(order, "event_time") + "|" + text(order, "currency");
        add(revenue.computeIfAbsent(key, k -> zeros(3)), BigDecimal.ONE,
            BigDecimal.valueOf(order.getInt(order.fieldIndex("items"))), amount(order));
        deliveredByCustomer.computeIfAbsent(order.getLong(order.fieldIndex("customer_id")) + "|"
            + text(order, "currency"), k -> new ArrayList<>()).add(order);
      }
    }
    assertThat(revenue).hasSizeGreaterThan(10);
    assertThat(rows(table(config, "daily_revenue"), "delivery_date, currency", "orders, items, revenue"))
        .isEqualTo(render(revenue));
    assertThat(rows(table(config, "orders_by_status"), "status_date, status", "orders, amount"))
        .isEqualTo(render(byStatus));

    Map<Long, Row> customers = new TreeMap<>();
    for (Row customer : spark.table(ShopLakehouse.CATALOG + ".silver.customers").where("NOT _is_deleted")
        .collectAsList()) {
      customers.put(customer.getLong(customer.fieldIndex("id")), customer);
    }
    Map<String, String> lifetime = new TreeMap<>();
    Map<String, BigDecimal[]> countries = new TreeMap<>();
    Map<String, TreeSet<String>> countryCustomers = new TreeMap<>();
    deliveredByCustomer.forEach((key, delivered) -> {
      long customerId = Long.parseLong(key.substring(0, key.indexOf('|')));
      String currency = key.substring(key.indexOf('|') + 1);
      Optional<Row> customer = Optional.ofNullable(customers.get(customerId));
      BigDecimal total = delivered.stream().map(GoldModelsIT::amount).reduce(BigDecimal.ZERO, BigDecimal::add);
      long first = delivered.stream().mapToLong(o -> o.getTimestamp(o.fieldIndex("event_time")).getTime()).min()
          .orElseThrow();
      long last = delivered.stream().mapToLong(o -> o.getTimestamp(o.fieldIndex("event_time")).getTime()).max()
          .orElseThrow();
      lifetime.put(key, String.join(" ", customer.map(c -> text(c, "name") + " " + text(c, "country") + " "
          + text(c, "tier")).orElse("").strip(), String.valueOf(delivered.size()), total.toPlainString(), String.valueOf(first),
          String.valueOf(last)).strip());
      String country = customer.map(c -> text(c, "country")).orElse("unknown") + "|" + currency;
      countryCustomers.computeIfAbsent(country, k -> new TreeSet<>()).add(String.valueOf(customerId));
      add(countries.computeIfAbsent(country, k -> zeros(2)), BigDecimal.valueOf(delivered.size()), total);
    });
    assertThat(rows(table(config, "customer_lifetime_value"), "customer_id, currency",
        "name, country, tier, delivered_orders, lifetime_revenue, unix_millis(first_delivery),"
            + " unix_millis(last_delivery)"))
        .isEqualTo(lifetime);
    Map<String, String> expectedCountries = new TreeMap<>();
    countries.forEach((key, sums) -> expectedCountries.put(key, countryCustomers.get(key).size() + " "
        + sums[0].toPlainString() + " " + sums[1].toPlainString()));
    assertThat(rows(table(config, "country_value"), "country, currency",
        "customers, delivered_orders, lifetime_revenue")).isEqualTo(expectedCountries);
  }

  @ParameterizedTest
  @EnumSource(TableFormat.class)
  void theSameIntervalTwiceAndABackfillGiveIdenticalTables(TableFormat format) {
    Interval all = allDays();
    TributaryConfig dayByDay = config("gold_daily", format);
    for (LocalDate day = all.start(); day.isBefore(all.end()); day = day.plusDays(1)) {
      run(dayByDay, Interval.day(day));
    }
    Map<String, List<String>> daily = new TreeMap<>();
    MODELS.forEach(model -> daily.put(model, content(table(dayByDay, model))));
    assertThat(daily.values()).allSatisfy(rows -> assertThat(rows).isNotEmpty());

    // A retry of one day commits again and changes nothing.
    long before = commits(dayByDay, "daily_revenue");
    run(dayByDay, Interval.day(all.start().plusDays(1)));
    assertThat(commits(dayByDay, "daily_revenue")).isEqualTo(before + 1);
    MODELS.forEach(model -> assertThat(content(table(dayByDay, model))).as(model).isEqualTo(daily.get(model)));

    // One backfill of all days ends in the same tables as the day-by-day runs.
    TributaryConfig backfill = config("gold_backfill", format);
    run(backfill, all);
    MODELS.forEach(model -> assertThat(content(table(backfill, model))).as(model)
        .isEqualTo(daily.get(model)));
    // A full refresh replaces the whole table with the result for its interval: for one day, the other days go
    // (the old content stays readable by time travel); for all days, the table is as it was built day by day.
    ModelGraph graph = ModelGraph.load(Path.of(backfill.gold().models()));
    GoldRunner runner = new GoldRunner(spark, backfill);
    String revenue = table(backfill, "daily_revenue");
    long complete = format == TableFormat.DELTA
        ? deltaHistory(backfill, "daily_revenue").selectExpr("max(version)").first().getLong(0)
        : spark.sql("SELECT snapshot_id FROM " + revenue + ".snapshots ORDER BY committed_at DESC LIMIT 1")
            .first().getLong(0);
    LocalDate lastDay = spark.sql("SELECT max(delivery_date) FROM " + revenue).first().getDate(0).toLocalDate();
    runner.run(runner.planFullRefresh(graph.select("daily_revenue"), Interval.day(lastDay)), line -> { });
    assertThat(spark.sql("SELECT DISTINCT delivery_date FROM " + revenue).collectAsList()).hasSize(1)
        .allSatisfy(row -> assertThat(row.getDate(0).toLocalDate()).isEqualTo(lastDay));
    assertThat(spark.sql("SELECT * FROM " + revenue + " VERSION AS OF " + complete).toJSON().collectAsList()
        .stream().sorted().toList()).isEqualTo(daily.get("daily_revenue"));
    runner.run(runner.planFullRefresh(graph.select("daily_revenue"), all), line -> { });
    assertThat(content(revenue)).isEqualTo(daily.get("daily_revenue"));
  }

  @ParameterizedTest
  @EnumSource(TableFormat.class)
  void everyCommitRecordsItsInputsSnapshotsAndTheModelVersion(TableFormat format) {
    TributaryConfig config = config("gold_lineage", format);
    Interval day = Interval.day(allDays().start());
    List<ModelRun> runs = run(config, day);
    long orders = icebergTable(ShopLakehouse.CATALOG + ".silver.orders").currentSnapshot().snapshotId();
    long customers = icebergTable(ShopLakehouse.CATALOG + ".silver.customers").currentSnapshot().snapshotId();
    ModelRun lifetime = runs.get(0);
    long committed = format == TableFormat.DELTA
        ? deltaHistory(config, "customer_lifetime_value").selectExpr("max(version)").first().getLong(0)
        : icebergTable(table(config, "customer_lifetime_value")).currentSnapshot().snapshotId();
    assertThat(committed).isEqualTo(lifetime.snapshotId());
    Lineage lineage = newestLineage(config, "customer_lifetime_value");
    assertThat(lineage.inputs()).isEqualTo("silver.customers@" + customers + ",silver.orders@" + orders);
    assertThat(lineage.interval()).isEqualTo(day.toString());
    assertThat(lineage.version()).isEqualTo(lifetime.model().version()).hasSize(64);
    // The model built on another reads the snapshot that one committed in the same run.
    Lineage country = newestLineage(config, "country_value");
    assertThat(country.inputs()).isEqualTo(config.gold().namespace() + ".customer_lifetime_value@"
        + lifetime.snapshotId());
    assertThat(country.runId()).isEqualTo(lineage.runId());
  }

  @Test
  void aFailingTestStopsTheRunReportsTheRowsAndLeavesTheTableAsItWas(@TempDir Path models) throws Exception {
    Interval all = allDays();
    TributaryConfig good = lakehouse.config("gold_failing");
    run(good, Interval.day(all.start()));
    String revenue = table("gold_failing", "daily_revenue");
    long snapshot = icebergTable(revenue).currentSnapshot().snapshotId();
    List<String> before = content(revenue);

    copyModels(models, Map.of("daily_revenue.sql", "-- test: accepted_values(currency, 'EUR', 'USD')\n"));
    TributaryConfig strict = lakehouse.config("gold_failing", models.toString());
    assertThatThrownBy(() -> run(strict, Interval.day(all.start().plusDays(1))))
        .isInstanceOf(ModelFailedException.class)
        .hasMessageStartingWith("model daily_revenue: test accepted_values(currency, 'EUR', 'USD') failed: ")
        .hasMessageContaining("\"currency\":\"GBP\"")
        .hasMessageContaining("\"delivery_date\":\"" + all.start().plusDays(1) + "\"");
    assertThat(icebergTable(revenue).currentSnapshot().snapshotId()).isEqualTo(snapshot);
    assertThat(content(revenue)).isEqualTo(before);
  }

  @Test
  void anUnknownTableOrColumnFailsBeforeAnythingRuns(@TempDir Path models) throws Exception {
    copyModels(models, Map.of());
    Files.writeString(models.resolve("typo.sql"), "SELECT count(*) AS n FROM {{ source('silver.order') }}");
    Files.writeString(models.resolve("bad_column.sql"), "SELECT sum(amount_eur) AS n FROM {{ source('silver.orders') }}");
    TributaryConfig config = lakehouse.config("gold_unknown", models.toString());
    ModelGraph graph = ModelGraph.load(models);
    GoldRunner runner = new GoldRunner(spark, config);
    assertThatThrownBy(() -> runner.plan(graph.inOrder(), allDays()))
        .isInstanceOf(InvalidModelException.class)
        .satisfies(e -> assertThat(((InvalidModelException) e).problems()).containsExactly(
            "model typo reads silver.order, which is not a table in catalog goldlake"));
    Files.delete(models.resolve("typo.sql"));
    assertThatThrownBy(() -> runner.plan(ModelGraph.load(models).inOrder(), allDays()))
        .isInstanceOf(InvalidModelException.class)
        .satisfies(e -> assertThat(((InvalidModelException) e).problems()).singleElement(
            org.assertj.core.api.InstanceOfAssertFactories.STRING)
            .startsWith("model bad_column: its SQL does not analyse: ").contains("amount_eur"));
    assertThat(spark.sql("SHOW NAMESPACES IN " + ShopLakehouse.CATALOG).collectAsList().toString())
        .doesNotContain("gold_unknown");
  }

  @Test
  void aDryRunDescribesThePlanWithPinnedInputsAndWritesNothing() {
    TributaryConfig config = lakehouse.config("gold_dry");
    ModelGraph graph = ModelGraph.load(Path.of(config.gold().models()));
    GoldRunner runner = new GoldRunner(spark, config);
    Interval day = Interval.day(allDays().start());
    String plan = runner.plan(graph.selectWithDownstream("customer_lifetime_value"), day).describe();
    long orders = icebergTable(ShopLakehouse.CATALOG + ".silver.orders").currentSnapshot().snapshotId();
    assertThat(plan)
        .startsWith("Gold plan for " + day + " ({{ start }} = DATE'" + day.start() + "', {{ end }} = DATE'"
            + day.end() + "'): 2 models")
        .contains("[1/2] customer_lifetime_value: merge on (customer_id, currency) into goldlake.gold_dry"
            + ".customer_lifetime_value")
        .contains("reads: silver.customers@")
        .contains("FROM goldlake.silver.orders VERSION AS OF " + orders)
        .contains("event_time >= DATE'" + day.start() + "' AND event_time < DATE'" + day.end() + "'")
        .contains("[2/2] country_value: table, replaces goldlake.gold_dry.country_value")
        .contains("reads: gold_dry.customer_lifetime_value@(built before it in this run)")
        .doesNotContain("daily_revenue");
    assertThat(spark.sql("SHOW NAMESPACES IN " + ShopLakehouse.CATALOG).collectAsList().toString())
        .doesNotContain("gold_dry");
  }

  /** Copies gold/models to {@code folder}, putting {@code extraHeaders} (file → lines) on top of some files. */
  private static void copyModels(Path folder, Map<String, String> extraHeaders) throws Exception {
    try (var files = Files.list(Path.of(ShopLakehouse.MODELS))) {
      for (Path file : files.toList()) {
        String name = file.getFileName().toString();
        Files.writeString(folder.resolve(name), extraHeaders.getOrDefault(name, "") + Files.readString(file));
      }
    }
  }

  private static long snapshots(String table) {
    return spark.table(table + ".snapshots").count();
  }

  private static Table icebergTable(String name) {
    return InputTables.load(spark, name).orElseThrow();
  }

  private static BigDecimal[] zeros(int size) {
    BigDecimal[] sums = new BigDecimal[size];
    java.util.Arrays.fill(sums, BigDecimal.ZERO);
    return sums;
  }

  private static void add(BigDecimal[] sums, BigDecimal... values) {
    for (int i = 0; i < values.length; i++) {
      sums[i] = sums[i].add(values[i]);
    }
  }

  private static Map<String, String> render(Map<String, BigDecimal[]> sums) {
    Map<String, String> rendered = new TreeMap<>();
    sums.forEach((key, values) -> rendered.put(key, String.join(" ",
        java.util.Arrays.stream(values).map(BigDecimal::toPlainString).toList())));
    return rendered;
  }
}
