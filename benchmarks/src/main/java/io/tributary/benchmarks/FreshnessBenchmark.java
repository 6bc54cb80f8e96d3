package io.tributary.benchmarks;

import io.tributary.common.cli.Arguments;
import io.tributary.localstack.GeneratedRecord;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.ShopProducer;
import io.tributary.localstack.Topics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Freshness: how long after a record reaches Kafka it can be read in bronze and in silver. Bronze and silver run
 * continuously as a user runs them ({@code bin/tributary bronze} and {@code bin/tributary silver}, each its own JVM,
 * with the shipped defaults of {@code conf/application.conf} unless {@code --bronze-trigger} or {@code
 * --silver-trigger} say otherwise) while a producer sends Debezium inserts (one new key each) at a steady rate to the
 * local broker. For every record produced after the warm-up: the time from its Kafka timestamp to the commit of the
 * first bronze snapshot and of the first silver snapshot that hold it. A stream stamps its rows with its batch's
 * time ({@code ingested_at} in bronze, {@code _updated_at} in silver), and the first commit of the table after that
 * time is the batch's; every record is an insert, so its silver row is the one its own change wrote.
 *
 * <p>The report gives p50 / p95 / p99 / max per layer, latency over time (a table and a PNG chart next to it), and
 * how long each layer took to hold every record once the producer stopped.
 *
 * <p>Run with {@code bin/tributary bench-freshness [--rate N] [--minutes N] [--warmup-seconds N] [--partitions N]
 * [--bronze-trigger D] [--silver-trigger D]}.
 */
public final class FreshnessBenchmark {
  private static final String TOPIC = "bench.fresh";
  private static final String BRONZE = "lake.bronze.fresh";
  private static final String SILVER = "lake.silver.fresh";
  private static final String SCHEMA = "id BIGINT, name STRING, email STRING, country STRING,"
      + " amount DECIMAL(10,2), created_at TIMESTAMP";
  /** Latency over time is reported per bin of this many seconds of Kafka time. */
  private static final int BIN_SECONDS = 10;

  /** What the run was given. */
  record Settings(long rate, long minutes, long warmupSeconds, int partitions, String bronzeTrigger,
      String silverTrigger) {
    long records() {
      return rate * (warmupSeconds + minutes * 60);
    }
  }

  private final BenchmarkWorkspace workspace;
  private final SparkSession spark;
  private final Settings settings;

  private FreshnessBenchmark(BenchmarkWorkspace workspace, Settings settings) {
    this.workspace = workspace;
    this.spark = workspace.spark();
    this.settings = settings;
  }

  public static void main(String[] args) throws Exception {
    Arguments options = BenchmarkWorkspace.arguments("bench-freshness", args,
        Set.of("rate", "minutes", "warmup-seconds", "partitions", "bronze-trigger", "silver-trigger"), """
        Kafka-to-silver latency with bronze and silver streaming: Debezium inserts at a steady rate, latency from
        each record's Kafka timestamp to the commit of the first snapshot holding it (p50, p95, max).
          --rate N             changes per second (default 2000)
          --minutes N          measured minutes (default 5)
          --warmup-seconds N   unmeasured start (default 120)
          --partitions N       topic partitions (default 2)
          --bronze-trigger D   bronze trigger (default: the shipped config's)
          --silver-trigger D   silver trigger (default: the shipped config's)
        """);
    Settings settings = new Settings(BenchmarkWorkspace.positive(options, "rate", "2000"),
        BenchmarkWorkspace.positive(options, "minutes", "5"),
        BenchmarkWorkspace.positive(options, "warmup-seconds", "120"),
        (int) BenchmarkWorkspace.positive(options, "partitions", "2"),
        options.value("bronze-trigger").orElse(null), options.value("silver-trigger").orElse(null));
    try (BenchmarkWorkspace workspace = BenchmarkWorkspace.open("freshness", "catalog.name = lake")) {
      LocalKafkaBroker broker = LocalKafkaBroker.start(workspace.folder().resolve("kafka"),
          Map.of("log.retention.ms", "-1"));
      try {
        workspace.report(new FreshnessBenchmark(workspace, settings).run(broker));
        workspace.keepLogs();
      } finally {
        LocalKafkaBroker.find(workspace.folder().resolve("kafka")).ifPresent(LocalKafkaBroker::stop);
      }
    }
    System.exit(0);
  }

  /**
   * The shipped config with this run's folders and broker, one source and one entity instead of the demo's (a
   * {@code null} first, so that the demo's blocks are replaced rather than merged), and the triggers if given.
   */
  private Path writeConfig(String bootstrapServers) throws IOException {
    Path folder = workspace.folder();
    String text = "include file(\"" + Path.of("conf/application.conf").toAbsolutePath() + "\")\n"
        + "tributary {\n"
        + "  catalog.warehouse = \"" + folder.resolve("warehouse") + "\"\n"
        + "  checkpoint-location = \"" + folder.resolve("checkpoints") + "\"\n"
        + "  kafka.bootstrap-servers = \"" + bootstrapServers + "\"\n"
        + "  bronze.sources = null\n"
        + "  bronze.sources.fresh { topic = \"" + TOPIC + "\", table = \"bronze.fresh\" }\n"
        + "  silver.entities = null\n"
        + "  silver.databases = null\n"
        + "  silver.entities.fresh { source = \"bronze.fresh\", key = [id], schema = \"" + SCHEMA + "\","
        + " table = \"silver.fresh\" }\n"
        + (settings.bronzeTrigger() == null ? "" : "  bronze.defaults.trigger = \"" + settings.bronzeTrigger() + "\"\n")
        + (settings.silverTrigger() == null ? "" : "  silver.defaults.trigger = \"" + settings.silverTrigger() + "\"\n")
        + "}\n";
    return Files.writeString(folder.resolve("freshness.conf"), text);
  }

  /** CPU seconds used so far by each process of the run. */
  private static Map<String, Double> cpu(JobProcess bronze, JobProcess silver, LocalKafkaBroker broker) {
    Map<String, Double> used = new java.util.LinkedHashMap<>();
    used.put("bronze", bronze.cpu().toMillis() / 1000.0);
    used.put("silver", silver.cpu().toMillis() / 1000.0);
    used.put("broker", ProcessHandle.of(broker.pid()).flatMap(handle -> handle.info().totalCpuDuration())
        .orElse(Duration.ZERO).toMillis() / 1000.0);
    used.put("producer and this benchmark", ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO)
        .toMillis() / 1000.0);
    return used;
  }

  private String run(LocalKafkaBroker broker) throws Exception {
    String bootstrapServers = broker.bootstrapServers();
    Path config = writeConfig(bootstrapServers);
    Map<String, Object> client = Map.of("bootstrap.servers", bootstrapServers);
    Topics.create(client, List.of(TOPIC), settings.partitions(), Map.of());
    JobProcess bronze = JobProcess.start(workspace.folder(), config, bootstrapServers, "bronze",
        ChaosBenchmark.Moment.RANDOM);
    JobProcess silver = JobProcess.start(workspace.folder(), config, bootstrapServers, "silver",
        ChaosBenchmark.Moment.RANDOM);
    try {
      log("waiting for bronze and silver to stream (%s each)", JobProcess.HEAP);
      if (!bronze.awaitStreaming(Duration.ofMinutes(3)) || !silver.awaitStreaming(Duration.ofMinutes(3))) {
        throw new IllegalStateException("bronze or silver did not start streaming within 3 minutes; see the logs"
            + " in " + workspace.folder());
      }
      Map<String, Double> cpuAtStart = cpu(bronze, silver, broker);
      long start = System.currentTimeMillis();
      long measuredFrom = start + settings.warmupSeconds() * 1000;
      log("producing %,d Debezium inserts at %,d/s (%d s warm-up, then %d min measured)", settings.records(),
          settings.rate(), settings.warmupSeconds(), settings.minutes());
      CompletableFuture<ShopProducer.Summary> producing = CompletableFuture.supplyAsync(
          () -> ShopProducer.send(client, inserts(settings.records()), settings.rate()));
      while (!producing.isDone()) {
        Thread.sleep(10_000);
        printProgress(start);
      }
      ShopProducer.Summary produced = producing.get();
      long producedAt = System.currentTimeMillis();
      log("produced in %,d ms (%,.0f/s)", produced.took().toMillis(),
          settings.records() * 1000.0 / produced.took().toMillis());
      long bronzeDrain = awaitRows(BRONZE, producedAt, start);
      long silverDrain = awaitRows(SILVER, producedAt, start);
      Map<String, Double> cpuAtEnd = cpu(bronze, silver, broker);
      double seconds = (System.currentTimeMillis() - start) / 1000.0;
      StringBuilder cpuLine = new StringBuilder(String.format("CPU from the first record until silver held the last"
          + " (%.0f s, %d cores):", seconds, Runtime.getRuntime().availableProcessors()));
      cpuAtEnd.forEach((process, used) -> cpuLine.append(String.format(" %s %.0f s (%.0f%% of the machine);",
          process, used - cpuAtStart.get(process), 100 * (used - cpuAtStart.get(process))
              / (seconds * Runtime.getRuntime().availableProcessors()))));
      return report(measuredFrom, produced, bronzeDrain, silverDrain, cpuLine.toString());
    } finally {
      bronze.stop();
      silver.stop();
    }
  }

  /** Debezium JSON inserts of keys 1, 2, ..., each stamped with the time it is handed to the producer. */
  private Iterator<GeneratedRecord> inserts(long count) {
    return new Iterator<>() {
      private long id;

      @Override
      public boolean hasNext() {
        return id < count;
      }

      @Override
      public GeneratedRecord next() {
        id++;
        long now = System.currentTimeMillis();
        String after = "{\"id\":" + id + ",\"name\":\"customer " + id + "\",\"email\":\"c" + id
            + "@example.com\",\"country\":\"BE\",\"amount\":\"" + (id % 10_000) + ".25\",\"created_at\":"
            + now * 1000 + "}";
        String value = "{\"before\":null,\"after\":" + after + ",\"source\":{\"connector\":\"postgresql\",\"lsn\":"
            + id + ",\"ts_ms\":" + now + "},\"op\":\"c\",\"ts_ms\":" + now + "}";
        return new GeneratedRecord(TOPIC, ("{\"id\":" + id + "}").getBytes(StandardCharsets.UTF_8),
            value.getBytes(StandardCharsets.UTF_8), now, GeneratedRecord.Kind.EVENT);
      }
    };
  }

  /** Rows in bronze and silver, every 10 s, so that a long run shows it moves. */
  private void printProgress(long start) {
    log("%,d s: bronze %,d rows, silver %,d rows of %,d", (System.currentTimeMillis() - start) / 1000,
        count(BRONZE), count(SILVER), settings.records());
  }

  /**
   * The rows a table holds, from its current snapshot's summary: a metadata read, not a Spark job that would take CPU
   * from the streams being measured (every row is an insert, so the summary's records are the rows).
   */
  private long count(String table) {
    try {
      org.apache.iceberg.Snapshot current = org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark, table)
          .currentSnapshot();
      return current == null ? 0 : Long.parseLong(current.summary().getOrDefault("total-records", "0"));
    } catch (Exception e) {
      return 0; // not created yet
    }
  }

  /** Waits until {@code table} holds every record; the milliseconds that took after the producer stopped. */
  private long awaitRows(String table, long producedAt, long start) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(15);
    long lastPrint = System.nanoTime();
    while (count(table) < settings.records()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(table + " did not hold all " + settings.records() + " records within 15"
            + " minutes after the producer stopped; see the logs in " + workspace.folder());
      }
      if (System.nanoTime() - lastPrint > TimeUnit.SECONDS.toNanos(10)) {
        printProgress(start);
        lastPrint = System.nanoTime();
      }
      Thread.sleep(500);
    }
    return System.currentTimeMillis() - producedAt;
  }

  /**
   * The commit of each batch's rows: for each batch time a stream stamped on its rows, the first commit of the table
   * at or after it (a stream commits its batches one after another).
   */
  private Dataset<Row> batchCommits(String table, String stampColumn, String name) {
    TreeSet<Long> commits = new TreeSet<>(spark.sql("SELECT unix_millis(committed_at) FROM " + table + ".snapshots")
        .as(org.apache.spark.sql.Encoders.LONG()).collectAsList());
    List<Row> rows = new ArrayList<>();
    for (Row stamp : spark.sql("SELECT DISTINCT unix_millis(" + stampColumn + ") FROM " + table).collectAsList()) {
      Long commit = commits.ceiling(stamp.getLong(0));
      if (commit == null) {
        throw new IllegalStateException(table + " has rows stamped " + stamp.getLong(0) + " and no commit after it");
      }
      rows.add(RowFactory.create(stamp.getLong(0), commit));
    }
    StructType schema = new StructType().add(name + "_batch_ms", DataTypes.LongType)
        .add(name + "_commit_ms", DataTypes.LongType);
    return spark.createDataFrame(rows, schema);
  }

  private String report(long measuredFrom, ShopProducer.Summary produced, long bronzeDrain, long silverDrain,
      String cpuLine) throws IOException {
    batchCommits(BRONZE, "ingested_at", "bronze").createOrReplaceTempView("bronze_commits");
    batchCommits(SILVER, "_updated_at", "silver").createOrReplaceTempView("silver_commits");
    Dataset<Row> latencies = spark.sql("SELECT (kafka_ms - " + measuredFrom + ") / 1000D AS at_s,"
        + " (bronze_commit_ms - kafka_ms) / 1000D AS bronze_s, (silver_commit_ms - kafka_ms) / 1000D AS silver_s"
        + " FROM (SELECT b.partition, b.offset, unix_millis(b.kafka_timestamp) AS kafka_ms, bc.bronze_commit_ms"
        + " FROM " + BRONZE + " b JOIN bronze_commits bc ON unix_millis(b.ingested_at) = bc.bronze_batch_ms) b"
        + " JOIN (SELECT _source_partition, _source_offset, sc.silver_commit_ms FROM " + SILVER + " s"
        + " JOIN silver_commits sc ON unix_millis(s._updated_at) = sc.silver_batch_ms) s"
        + " ON b.partition = s._source_partition AND b.offset = s._source_offset"
        + " WHERE kafka_ms >= " + measuredFrom).cache();
    latencies.createOrReplaceTempView("latencies");
    Row overall = spark.sql("SELECT count(*), percentile(bronze_s, array(0.5, 0.95, 0.99)), max(bronze_s),"
        + " percentile(silver_s, array(0.5, 0.95, 0.99)), max(silver_s) FROM latencies").first();
    List<Row> bins = spark.sql("SELECT CAST(floor(at_s / " + BIN_SECONDS + ") * " + BIN_SECONDS + " AS INT) AS t,"
        + " count(*), percentile(bronze_s, 0.5), percentile(bronze_s, 0.95), max(bronze_s),"
        + " percentile(silver_s, 0.5), percentile(silver_s, 0.95), max(silver_s)"
        + " FROM latencies GROUP BY 1 HAVING count(*) >= " + settings.rate() * BIN_SECONDS / 2 + " ORDER BY 1")
        .collectAsList(); // the last bin, cut short by the producer's end, is left out
    long batches = spark.sql("SELECT count(*) FROM silver_commits").first().getLong(0);
    long bronzeBatches = spark.sql("SELECT count(*) FROM bronze_commits").first().getLong(0);

    String triggers = triggers(workspace.folder().resolve("freshness.conf"));
    Path chart = workspace.reportFile(".png");
    FreshnessChart.draw(chart, String.format("Kafka to bronze and silver at %,d events/s (%s)", settings.rate(),
        triggers), bins, BIN_SECONDS);

    StringBuilder text = new StringBuilder();
    text.append("# Freshness, ").append(LocalDateTime.now().withNano(0)).append("\n\n");
    text.append(String.format("Machine: %d cores, Java %s. Command: `bin/tributary bench-freshness --rate %d"
        + " --minutes %d --warmup-seconds %d --partitions %d%s%s`.%n%n", Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"), settings.rate(), settings.minutes(), settings.warmupSeconds(),
        settings.partitions(), settings.bronzeTrigger() == null ? "" : " --bronze-trigger \""
            + settings.bronzeTrigger() + "\"", settings.silverTrigger() == null ? "" : " --silver-trigger \""
            + settings.silverTrigger() + "\""));
    text.append(String.format("Debezium JSON inserts (about %d bytes each, one new key each) to a topic of %d"
        + " partitions on the local broker, paced at %,d/s (achieved %,.0f/s). `bin/tributary bronze` and"
        + " `bin/tributary silver` ran continuously, each its own JVM (%s, local[*]), with conf/application.conf"
        + " (%s; everything else as shipped). Latency of a record: from its Kafka timestamp to the commit of the first"
        + " snapshot that holds it. The first %d s are warm-up and not counted.%n%n",
        inserts(1).next().value().length, settings.partitions(), settings.rate(),
        settings.records() * 1000.0 / produced.took().toMillis(), JobProcess.HEAP, triggers,
        settings.warmupSeconds()));
    text.append(String.format("| layer | p50 | p95 | p99 | max | after the producer stopped |%n|---|---:|---:|---:|---:|"
        + "---:|%n"));
    text.append(String.format("| bronze (%,d commits) | %s | %,.0f ms until every record was in |%n", bronzeBatches,
        quantiles(overall, 1, 2), (double) bronzeDrain));
    text.append(String.format("| silver (%,d commits) | %s | %,.0f ms until every record was in |%n", batches,
        quantiles(overall, 3, 4), (double) silverDrain));
    text.append(String.format("%n%,d records measured. Target: silver p95 <= 10 s at 2,000 events/s: %s.%n%n",
        overall.getLong(0), settings.rate() == 2000 ? (p95(overall, 3) <= 10 ? "met" : "NOT met")
            : "(measured at another rate)"));
    text.append(String.format("Keeping up: silver p95 of the first and the last full %d s of the measured span:"
        + " %s.%n%n", BIN_SECONDS, bins.size() < 2 ? "too few bins" : String.format("%.1f s and %.1f s",
            bins.get(0).getDouble(6), bins.get(bins.size() - 1).getDouble(6))));
    text.append(cpuLine, 0, cpuLine.length() - 1).append(".\n\n");
    text.append("![latency over time](").append(chart.getFileName()).append(")\n\n");
    text.append("Latency over time (seconds, per ").append(BIN_SECONDS).append(" s of Kafka time):\n\n");
    text.append("| from s | records | bronze p50 | p95 | max | silver p50 | p95 | max |\n"
        + "|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Row bin : bins) {
      text.append(String.format("| %d | %,d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |%n", bin.getInt(0),
          bin.getLong(1), bin.getDouble(2), bin.getDouble(3), bin.getDouble(4), bin.getDouble(5), bin.getDouble(6),
          bin.getDouble(7)));
    }
    return text.toString();
  }

  /** The triggers the jobs ran with, as their config says (the run's options, else the shipped defaults). */
  private static String triggers(Path config) {
    io.tributary.common.config.TributaryConfig effective = io.tributary.common.config.TributaryConfig.load(config);
    return "bronze trigger " + effective.bronze().sources().get("fresh").trigger().toMillis() / 1000.0 + " s, silver"
        + " trigger " + effective.silver().entities().get("fresh").trigger().toMillis() / 1000.0 + " s";
  }

  private static double p95(Row overall, int column) {
    return overall.<Double>getList(column).get(1);
  }

  private static String quantiles(Row overall, int percentiles, int max) {
    List<Double> values = overall.getList(percentiles);
    return String.format("%.1f s | %.1f s | %.1f s | %.1f s", values.get(0), values.get(1), values.get(2),
        overall.getDouble(max));
  }

  private static void log(String format, Object... args) {
    System.out.printf("%s %s%n", java.time.LocalTime.now().withNano(0), String.format(format, args));
  }
}
