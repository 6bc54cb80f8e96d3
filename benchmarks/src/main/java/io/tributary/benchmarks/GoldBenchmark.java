package io.tributary.benchmarks;

import io.tributary.bronze.BronzeIngestJob;
import io.tributary.common.cli.Arguments;
import io.tributary.common.config.TributaryConfig;
import io.tributary.gold.GoldJob;
import io.tributary.gold.Interval;
import io.tributary.silver.SilverMergeJob;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.SparkSession;

/**
 * Gold: what an incremental run costs next to a full rebuild. Silver holds {@code orders} orders spread over
 * {@code days} days (built by the silver job from bronze, in time order as a stream would); then 1% of them change
 * (delivered on a new day) and silver merges the change. The incremental model {@code daily_revenue} of gold/models is
 * then built for the new day only, and for all days in one run (the full rebuild), each {@code repeats} times; the
 * median of each is reported. Both end in the same table, which is checked.
 *
 * <p>Run with {@code bin/tributary bench-gold [--orders N] [--days N] [--repeats N]}.
 */
public final class GoldBenchmark {
  private static final LocalDate FIRST_DAY = LocalDate.parse("2026-01-01");
  private static final String MODEL = "daily_revenue";

  private final SparkSession spark;
  private final TributaryConfig config;

  private GoldBenchmark(SparkSession spark, TributaryConfig config) {
    this.spark = spark;
    this.config = config;
  }

  public static void main(String[] args) throws Exception {
    Arguments options = BenchmarkWorkspace.arguments("bench-gold", args, Set.of("orders", "days", "repeats"), """
        A gold model's incremental run of one day against a full rebuild.
          --orders N    orders in silver (default 2000000)
          --days N      days they span (default 100)
          --repeats N   runs of each (default 3)
        """);
    long orders = BenchmarkWorkspace.positive(options, "orders", "2000000");
    int days = (int) BenchmarkWorkspace.positive(options, "days", "100");
    int repeats = (int) BenchmarkWorkspace.positive(options, "repeats", "3");
    try (BenchmarkWorkspace workspace = BenchmarkWorkspace.open("gold",
        "silver.entities.orders { source = bronze.orders, decoder = json, key = [order_id], sequence = [seq],"
            + " event-time-field = event_time, table = silver.orders, max-rows-per-trigger = "
            + Math.max(1, orders / 10) + ", schema = \"order_id STRING, event_type STRING, customer_id BIGINT,"
            + " status STRING, amount DECIMAL(10,2), currency STRING, items INT, seq BIGINT, event_time TIMESTAMP\" }\n"
            + "bronze.sources.orders { topic = \"bench.orders\", table = \"bronze.orders\" }\n"
            + "gold.models = \"" + Path.of("gold", "models").toAbsolutePath() + "\"")) {
      workspace.report(new GoldBenchmark(workspace.spark(), workspace.config()).run(orders, days, repeats));
    }
    System.exit(0);
  }

  private String run(long orders, int days, int repeats) throws Exception {
    new BronzeIngestJob(spark, config).createTables();
    System.out.printf("== bronze: %,d orders over %d days, in time order%n", orders, days);
    long msPerOrder = Math.max(1, days * 86_400_000L / orders);
    // Ten appends, as ten stretches of a stream; silver takes one per micro-batch.
    long chunk = (orders + 9) / 10;
    for (long from = 0; from < orders; from += chunk) {
      appendToBronze("SELECT id AS i, 1 AS seq, " + statusOf("id") + " AS status, " + timeOf("id", msPerOrder)
          + " AS event_ms FROM range(" + from + ", " + Math.min(orders, from + chunk) + ")", from);
    }
    long silverStart = System.nanoTime();
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    long silverMillis = (System.nanoTime() - silverStart) / 1_000_000;
    System.out.printf("   silver initial load: %,d ms%n", silverMillis);

    LocalDate newDay = FIRST_DAY.plusDays(days);
    long changed = orders / 100;
    System.out.printf("== 1%% of silver changes: %,d shipped orders delivered on %s%n", changed, newDay);
    // The orders whose status is 'shipped' are every 10th (see statusOf); the first `changed` of them change.
    appendToBronze("SELECT i, 2 AS seq, 'delivered' AS status, " + timeOf("CAST(0 AS BIGINT)", 1) + " + "
        + (days * 86_400_000L) + " + i AS event_ms FROM (SELECT id * 10 + 3 AS i FROM range(0, " + changed + "))",
        orders);
    long mergeStart = System.nanoTime();
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    long mergeMillis = (System.nanoTime() - mergeStart) / 1_000_000;
    long silverRows = spark.table("lake.silver.orders").count();

    Interval all = Interval.days(FIRST_DAY, newDay);
    Interval incremental = Interval.day(newDay);
    // One full build first, so that both measured runs write into an existing table.
    build(all);
    List<Long> fullRuns = new ArrayList<>();
    List<Long> incrementalRuns = new ArrayList<>();
    List<String> fullContent = null;
    for (int i = 0; i < repeats; i++) {
      fullRuns.add(build(all));
      fullContent = content();
      incrementalRuns.add(build(incremental));
    }
    if (!content().equals(fullContent)) {
      throw new IllegalStateException("the incremental run's table differs from the full rebuild's");
    }
    long full = median(fullRuns);
    long increment = median(incrementalRuns);
    double ratio = (double) increment / full;
    long goldRows = spark.table("lake.gold." + MODEL).count();

    StringBuilder text = new StringBuilder();
    text.append("# Gold: incremental run vs full rebuild, ").append(LocalDateTime.now().withNano(0)).append("\n\n");
    text.append(String.format("Machine: %d cores, Java %s, Spark master %s. Command: `bin/tributary bench-gold"
        + " --orders %d --days %d --repeats %d`.%n%n", Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"), spark.sparkContext().master(), orders, days, repeats));
    text.append(String.format("Silver `orders`: %,d rows over %d days (initial merge by the silver job: %,d ms); then"
        + " %,d rows (1%%) changed: shipped orders delivered on a new day (merged in %,d ms). Model `%s`"
        + " (incremental by delivery day) from gold/models; gold table: %,d rows.%n%n", silverRows, days,
        silverMillis, changed, mergeMillis, MODEL, goldRows));
    text.append("| run | interval | median wall time | all runs (ms) |\n|---|---|---:|---|\n");
    text.append(String.format("| full rebuild | %s (%d days) | %,d ms | %s |%n", all, days + 1, full, fullRuns));
    text.append(String.format("| incremental | %s (1 day) | %,d ms | %s |%n", incremental, increment,
        incrementalRuns));
    text.append(String.format("%nIncremental / full: %.3f. Target: <= 0.10: %s.%n", ratio,
        ratio <= 0.10 ? "met" : "NOT met"));
    text.append("Wall time of `GoldJob.execute` as `tributary gold` runs it: inputs pinned, SQL analysed, query, four"
        + " declared tests, one Iceberg commit. Checked: after the incremental run the table equals the full"
        + " rebuild's.\n");
    return text.toString();
  }

  /** Builds the model for an interval; returns the wall time in ms. */
  private long build(Interval interval) {
    long start = System.nanoTime();
    GoldJob.of(spark, config, interval).select(MODEL).execute(new PrintStream(OutputStream.nullOutputStream()));
    long millis = (System.nanoTime() - start) / 1_000_000;
    System.out.printf("   %s for %s: %,d ms%n", MODEL, interval, millis);
    return millis;
  }

  private List<String> content() {
    return spark.table("lake.gold." + MODEL).toJSON().collectAsList().stream().sorted().toList();
  }

  private static long median(List<Long> values) {
    return values.stream().sorted().toList().get(values.size() / 2);
  }

  /** 60% delivered, 10% cancelled, 20% shipped (ids ending in 3 or 8), 10% created. */
  private static String statusOf(String id) {
    return "CASE pmod(" + id + ", 10) WHEN 3 THEN 'shipped' WHEN 8 THEN 'shipped' WHEN 9 THEN 'cancelled'"
        + " WHEN 0 THEN 'created' ELSE 'delivered' END";
  }

  private static String timeOf(String id, long msPerOrder) {
    return "(" + FIRST_DAY.toEpochDay() * 86_400_000L + " + " + id + " * " + msPerOrder + ")";
  }

  /** Order events as the order service sends them (JSON, keyed by order id) at offsets from {@code first}. */
  private void appendToBronze(String source, long first) throws Exception {
    spark.sql("SELECT 'bench.orders' AS topic, 0 AS partition, " + first + " + row_number() OVER (ORDER BY event_ms, i)"
        + " - 1 AS offset, timestamp_millis(event_ms) AS kafka_timestamp,"
        + " CAST(format_string('o-%09d', i) AS BINARY) AS key,"
        + " CAST(to_json(named_struct('event_type', concat('order_', status), 'order_id', format_string('o-%09d', i),"
        + " 'customer_id', pmod(xxhash64(i), 50000) + 1, 'status', status,"
        + " 'amount', format_string('%d.%02d', 5 + pmod(i, 495), pmod(i, 100)),"
        + " 'currency', element_at(array('EUR', 'USD', 'GBP'), CAST(pmod(i, 3) + 1 AS INT)),"
        + " 'items', CAST(pmod(i, 5) + 1 AS INT), 'seq', seq,"
        + " 'event_time', date_format(timestamp_millis(event_ms), \"yyyy-MM-dd'T'HH:mm:ss.SSS'Z'\"))) AS BINARY)"
        + " AS value, CAST(NULL AS ARRAY<STRUCT<key: STRING, value: BINARY>>) AS headers,"
        + " current_timestamp() AS ingested_at FROM (" + source + ")")
        .repartitionByRange(4, org.apache.spark.sql.functions.col("offset"))
        .sortWithinPartitions("offset")
        .writeTo("lake.bronze.orders").append();
  }
}
