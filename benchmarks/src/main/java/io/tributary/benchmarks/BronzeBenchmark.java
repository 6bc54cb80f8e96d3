package io.tributary.benchmarks;

import com.typesafe.config.ConfigFactory;
import io.tributary.bronze.BronzeIngestJob;
import io.tributary.common.cli.Arguments;
import io.tributary.common.config.ConfigNames;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.SparkProgress;
import io.tributary.common.lakehouse.Tables;
import io.tributary.localstack.GeneratedRecord;
import io.tributary.localstack.GeneratorOptions;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.ShopEventGenerator;
import io.tributary.localstack.ShopProducer;
import io.tributary.localstack.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;

/**
 * Bronze throughput against two ceilings measured in the same run, on the same topic: Kafka's own consumer
 * (ConsumerPerformance) and Spark's Kafka source writing to the {@code noop} sink. For each size it measures a
 * one-shot run ({@code --once}: one AvailableNow batch) and steady state (continuous mode, batches of a tenth of the
 * topic, {@value #WARM_UP_BATCHES} warm-up batches dropped, {@value #MEASURED_BATCHES} measured).
 *
 * <p>Run: {@code bin/tributary bench [--records 1000000,5000000] [--partitions 2]}. Writes a Markdown report to
 * {@code var/benchmarks/bronze-<time>.md}.
 */
public final class BronzeBenchmark {
  static final int WARM_UP_BATCHES = 2;
  static final int MEASURED_BATCHES = 6;
  static final int ONE_SHOT_RUNS = 3;
  /** Extra bronze table properties for experiments, {@code key=value,key=value}. */
  static String tableProperties = "";
  /** The Connect sink is measured on topics up to this size. */
  static long connectLimit = 5_000_000;
  /** The bronze table formats measured, each on the same topic. */
  static List<TableFormat> formats = List.of(TableFormat.ICEBERG);

  private final SparkSession spark;
  private final LocalKafkaBroker broker;
  private final Path work;
  private final ProgressCollector progress = new ProgressCollector();
  private final int partitions;
  private final Tables tables;

  BronzeBenchmark(SparkSession spark, LocalKafkaBroker broker, Path work, int partitions) {
    this.spark = spark;
    this.broker = broker;
    this.work = work;
    this.partitions = partitions;
    this.tables = new Tables(config(work, broker, "warmup", "bench.warmup", 1, "1 second", TableFormat.ICEBERG)
        .catalog());
    spark.streams().addListener(progress);
  }

  /** The Iceberg Kafka Connect sink against bronze's steady state on the same topic. */
  record Baseline(long records, IcebergConnectSink.OffsetFlush flush, IcebergConnectSink.Result sink,
      Rate bronzeEndToEnd, Rate bronzeSteady) {}

  private final List<Baseline> baselines = new ArrayList<>();

  /** One size's figures in one table format. */
  record Result(long records, String mode, TableFormat format, Rate ceiling, Rate noop, Rate bronze,
      double filesPerCommit, double snapshotsPerCommit) {}

  public static void main(String[] args) throws Exception {
    Arguments options = BenchmarkWorkspace.arguments("bench", args, Set.of("records", "partitions",
        "table-properties", "connect-records", "formats"), """
        Bronze throughput against Kafka's and Spark's ceilings in the same run, and the Iceberg Kafka Connect sink
        on the same topic.
          --records L            records per run, one run each (default 1000000,5000000)
          --partitions N         topic partitions (default 2)
          --table-properties P   bronze table properties, k=v,k=v (default none)
          --connect-records N    the Connect sink runs for each size up to N records (default 5000000)
          --formats L            the bronze table's format: iceberg, delta or both: iceberg,delta (default iceberg)
        """);
    List<Long> sizes = BenchmarkWorkspace.positives(options, "records", "1000000,5000000");
    int partitions = (int) BenchmarkWorkspace.positive(options, "partitions", "2");
    tableProperties = options.value("table-properties").orElse("");
    connectLimit = BenchmarkWorkspace.positive(options, "connect-records", "5000000");
    formats = BenchmarkWorkspace.values(options, "formats", "iceberg", TableFormat.class);
    Path work = Path.of("var", "benchmarks", "run-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern(
        "yyyyMMdd-HHmmss"))).toAbsolutePath();
    Files.createDirectories(work);
    LocalKafkaBroker broker = LocalKafkaBroker.start(work.resolve("kafka"), Map.of());
    try {
      TributaryConfig base = config(work, broker, "warmup", "bench.warmup", 1000, "1 second", TableFormat.ICEBERG);
      SparkSession spark = LakehouseSession.builder(base, "bench").config("spark.ui.enabled", "false").getOrCreate();
      spark.sparkContext().setLogLevel("WARN");
      // Progress of the ceilings' and the baseline's Spark work every 10 s (the bronze runs print their own).
      SparkProgress.inBackground(spark, "  ... bench", System.out::println);
      BronzeBenchmark bench = new BronzeBenchmark(spark, broker, work, partitions);
      bench.warmUp();
      List<Result> results = new ArrayList<>();
      for (long size : sizes) {
        results.addAll(bench.measure(size));
      }
      String report = report(sizes, partitions, results) + bench.baselineReport();
      Path file = work.getParent().resolve("bronze-" + work.getFileName().toString().substring(4) + ".md");
      Files.writeString(file, report);
      System.out.println(report);
      System.out.println("Report written to " + file);
    } finally {
      broker.stop();
    }
    // Gigabytes of topic data and tables; the report is what stays.
    try (var files = Files.walk(work)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    }
    System.exit(0);
  }

  /** Runs both paths once on a small topic, so that neither measured path pays for class loading alone. */
  void warmUp() throws Exception {
    produce("bench.warmup", 200_000);
    for (TableFormat format : formats) {
      String source = "warmup_" + ConfigNames.of(format);
      TributaryConfig config = config(work, broker, source, "bench.warmup", 200_000, "1 second", format);
      if (format == formats.get(0)) {
        noop(config, source, true, Integer.MAX_VALUE);
      }
      new BronzeIngestJob(spark, config).runUntilCaughtUp();
    }
  }

  List<Result> measure(long size) throws Exception {
    String topic = "bench.orders." + size;
    System.out.printf("%n== %,d records: producing to %s%n", size, topic);
    produce(topic, size);
    System.out.println("== consumer ceiling (ConsumerPerformance)");
    Rate ceiling = ConsumerCeiling.measure(broker, topic, size);
    System.out.printf("   %s records/s%n", ceiling.formatted());

    List<Result> results = new ArrayList<>();
    System.out.printf("== one-shot: noop sink and bronze (%s), alternating, %d times each; medians%n",
        String.join(", ", formats.stream().map(ConfigNames::of).toList()), ONE_SHOT_RUNS);
    List<Rate> noopOnce = new ArrayList<>();
    Map<TableFormat, List<Rate>> bronzeOnce = new EnumMap<>(TableFormat.class);
    Map<TableFormat, List<Rate>> bronzeWall = new EnumMap<>(TableFormat.class);
    Map<TableFormat, String> lastOnce = new EnumMap<>(TableFormat.class);
    for (int run = 1; run <= ONE_SHOT_RUNS; run++) {
      // Alternate which path runs first, so that neither always gets the warmer JVM; the formats take turns too.
      List<TableFormat> order = new ArrayList<>(formats);
      if (run % 2 == 0) {
        java.util.Collections.reverse(order);
      }
      String base = "once_" + size + "_" + run;
      TributaryConfig noopConfig = config(work, broker, base, topic, size, "1 second", formats.get(0));
      if (run % 2 == 1) {
        noopOnce.add(Rate.of(noop(noopConfig, base, true, Integer.MAX_VALUE)));
      }
      StringBuilder line = new StringBuilder();
      for (TableFormat format : order) {
        String once = base + "_" + ConfigNames.of(format);
        TributaryConfig onceConfig = config(work, broker, once, topic, size, "1 second", format);
        long started = System.nanoTime();
        new BronzeIngestJob(spark, onceConfig).runUntilCaughtUp();
        bronzeWall.computeIfAbsent(format, f -> new ArrayList<>())
            .add(new Rate(size, (System.nanoTime() - started) / 1_000_000, 1));
        Rate rate = Rate.of(progress.batches("bronze-" + once));
        bronzeOnce.computeIfAbsent(format, f -> new ArrayList<>()).add(rate);
        lastOnce.put(format, once);
        line.append(", bronze ").append(ConfigNames.of(format)).append(' ').append(rate.formatted());
      }
      if (run % 2 == 0) {
        noopOnce.add(Rate.of(noop(noopConfig, base, true, Integer.MAX_VALUE)));
      }
      System.out.printf("   run %d: noop %s%s records/s%n", run, noopOnce.get(run - 1).formatted(), line);
    }
    for (TableFormat format : formats) {
      results.add(result(size, "one-shot (--once)", format, ceiling, Rate.median(noopOnce),
          Rate.median(bronzeOnce.get(format)), lastOnce.get(format)));
    }

    String steady = "steady_" + size;
    int batches = WARM_UP_BATCHES + MEASURED_BATCHES;
    System.out.printf("== steady state: %d batches of %,d, first %d dropped%n", batches, size / 10, WARM_UP_BATCHES);
    Rate noopSteady = Rate.of(measured(noop(config(work, broker, steady, topic, size / 10, "100 milliseconds",
        formats.get(0)), steady, false, batches)));
    Map<TableFormat, Rate> bronzeSteady = new EnumMap<>(TableFormat.class);
    for (TableFormat format : formats) {
      String source = steady + "_" + ConfigNames.of(format);
      Rate rate = Rate.of(measured(bronzeContinuous(config(work, broker, source, topic, size / 10,
          "100 milliseconds", format), source, batches)));
      bronzeSteady.put(format, rate);
      results.add(result(size, "steady state (continuous)", format, ceiling, noopSteady, rate, source));
      System.out.printf("   noop %s, bronze %s %s records/s%n", noopSteady.formatted(), ConfigNames.of(format),
          rate.formatted());
    }

    // The sink writes Iceberg: bronze's figures next to it are Iceberg's when measured.
    TableFormat compared = formats.contains(TableFormat.ICEBERG) ? TableFormat.ICEBERG : formats.get(0);
    if (size <= connectLimit) {
      System.out.printf("== Apache Iceberg Kafka Connect sink (%d tasks, commits every %d s) on the same topic%n",
          IcebergConnectSink.TASKS, IcebergConnectSink.COMMIT_INTERVAL.toSeconds());
      for (IcebergConnectSink.OffsetFlush flush : IcebergConnectSink.OffsetFlush.values()) {
        IcebergConnectSink.Result sink = IcebergConnectSink.measure(broker, work.resolve("connect-" + size + "-"
            + flush.name().toLowerCase(java.util.Locale.ROOT)), topic, size, flush);
        baselines.add(new Baseline(size, flush, sink, Rate.median(bronzeWall.get(compared)),
            bronzeSteady.get(compared)));
        System.out.printf("   sink (offset flush %s), records/s: end to end %s, at best between commits %s;"
            + " commits: %s%n", flush.label, sink.endToEndText(), sink.burstText(), sink.timeline());
      }
    }
    return results;
  }

  private static List<ProgressCollector.Batch> measured(List<ProgressCollector.Batch> batches) {
    return batches.subList(WARM_UP_BATCHES, Math.min(batches.size(), WARM_UP_BATCHES + MEASURED_BATCHES));
  }

  private void produce(String topic, long records) {
    Map<String, Object> client = Map.of("bootstrap.servers", broker.bootstrapServers());
    Topics.create(client, List.of(topic), partitions, Map.of());
    GeneratorOptions options = new GeneratorOptions(records, 0, 100_000, 0, 0, 0, false,
        Instant.now().minus(Duration.ofDays(2)), Duration.ofDays(2), 1);
    Iterator<GeneratedRecord> orders = ShopEventGenerator.orders(options);
    Iterator<GeneratedRecord> toTopic = new Iterator<>() {
      @Override
      public boolean hasNext() {
        return orders.hasNext();
      }

      @Override
      public GeneratedRecord next() {
        GeneratedRecord record = orders.next();
        return new GeneratedRecord(topic, record.key(), record.value(), record.timestampMs(), record.kind());
      }
    };
    System.out.print("   " + ShopProducer.send(client, toTopic, 0));
  }

  /** The bronze read path into Spark's noop sink: everything but the table write. */
  private List<ProgressCollector.Batch> noop(TributaryConfig config, String source, boolean once, int batches)
      throws Exception {
    String name = "noop-" + source;
    StreamingQuery query = new BronzeIngestJob(spark, config).sourceRecords(source).writeStream()
        .format("noop")
        .queryName(name)
        .option("checkpointLocation", work.resolve("checkpoints/noop/" + source).toString())
        .trigger(once ? Trigger.AvailableNow() : Trigger.ProcessingTime(config.bronze().sources().get(source)
            .trigger().toMillis()))
        .start();
    if (once) {
      query.awaitTermination();
    } else {
      awaitBatches(name, batches);
      query.stop();
    }
    return progress.batches(name);
  }

  private List<ProgressCollector.Batch> bronzeContinuous(TributaryConfig config, String source, int batches)
      throws Exception {
    String name = "bronze-" + source;
    Thread job = new Thread(() -> new BronzeIngestJob(spark, config).runContinuously(), "bench-" + name);
    job.start();
    awaitBatches(name, batches);
    for (StreamingQuery query : spark.streams().active()) {
      query.stop();
    }
    job.join();
    return progress.batches(name);
  }

  private void awaitBatches(String queryName, int batches) throws InterruptedException {
    Instant deadline = Instant.now().plus(Duration.ofMinutes(20));
    while (progress.batches(queryName).size() < batches) {
      if (Instant.now().isAfter(deadline)) {
        throw new IllegalStateException(queryName + " did not run " + batches + " batches in 20 minutes");
      }
      Thread.sleep(200);
    }
  }

  /** The figures of one mode and format, with the data files and table commits per batch the run made. */
  private Result result(long size, String mode, TableFormat format, Rate ceiling, Rate noop, Rate bronze,
      String source) {
    TableName table = new TableName("bronze", source);
    Row stats = format == TableFormat.DELTA
        ? spark.sql("DESCRIBE HISTORY " + tables.sqlName(table, format)).where("operation <> 'CREATE TABLE'")
            .selectExpr("count(*)", "avg(CAST(operationMetrics['numFiles'] AS DOUBLE))").first()
        : spark.sql("SELECT count(*), avg(CAST(summary['added-data-files'] AS DOUBLE)) FROM "
            + tables.sqlName(table, format) + ".snapshots").first();
    long batches = progress.batches("bronze-" + source).size();
    return new Result(size, mode, format, ceiling, noop, bronze, stats.isNullAt(1) ? 0 : stats.getDouble(1),
        batches == 0 ? 0 : (double) stats.getLong(0) / batches);
  }

  static TributaryConfig config(Path work, LocalKafkaBroker broker, String source, String topic,
      long maxOffsetsPerTrigger, String trigger, TableFormat format) {
    return TributaryConfig.from(ConfigFactory.parseString("tributary {\n"
        + "  catalog.warehouse = \"" + work.resolve("warehouse") + "\"\n"
        + "  bronze.format = " + ConfigNames.of(format) + "\n"
        + "  kafka.bootstrap-servers = \"" + broker.bootstrapServers() + "\"\n"
        + "  checkpoint-location = \"" + work.resolve("checkpoints") + "\"\n"
        + "  bronze.sources." + source + " { topic = \"" + topic + "\", table = \"bronze." + source + "\","
        + " max-offsets-per-trigger = " + maxOffsetsPerTrigger + ", trigger = \"" + trigger + "\","
        + " table-properties {" + hoconProperties(tableProperties) + "} }\n"
        + "}\n"));
  }

  private static String hoconProperties(String pairs) {
    StringBuilder text = new StringBuilder();
    for (String pair : pairs.split(",")) {
      if (!pair.isBlank()) {
        String[] parts = pair.split("=", 2);
        text.append(text.isEmpty() ? " \"" : ", \"").append(parts[0].trim()).append("\" = \"").append(parts[1].trim()).append('"');
      }
    }
    return text.toString();
  }

  String baselineReport() {
    if (baselines.isEmpty()) {
      return "";
    }
    StringBuilder text = new StringBuilder(String.format("%nAgainst the Apache Iceberg Kafka Connect sink 1.12.0 on"
        + " Kafka Connect 4.3.0 (standalone worker, %d tasks, a commit every %d s), same topic. End to end: all"
        + " records committed, timed from the sink's tasks running / from the bronze --once call (median of %d),"
        + " both in running JVMs. Burst: the sink's best stretch between two commits; bronze's steady state.%n%n",
        IcebergConnectSink.TASKS, IcebergConnectSink.COMMIT_INTERVAL.toSeconds(), ONE_SHOT_RUNS));
    text.append("| records | worker offset flush | sink, end to end | bronze --once, end to end | bronze / sink"
        + " | sink, burst | bronze, steady state | sink commits (s after first: total records) |\n");
    text.append("|---:|---|---:|---:|---:|---:|---:|---|\n");
    for (Baseline baseline : baselines) {
      text.append(String.format("| %,d | %s | %s | %s | %s | %s | %s | %s |%n", baseline.records(),
          baseline.flush().label, baseline.sink().endToEndText(), baseline.bronzeEndToEnd().formatted(),
          baseline.sink().endToEnd().map(sink -> String.format("%.1f", baseline.bronzeEndToEnd().perSecond()
              / sink.perSecond())).orElse("-"),
          baseline.sink().burstText(), baseline.bronzeSteady().formatted(), baseline.sink().timeline()));
    }
    return text.toString();
  }

  static String report(List<Long> sizes, int partitions, List<Result> results) {
    StringBuilder text = new StringBuilder();
    text.append("# Bronze throughput, ").append(LocalDateTime.now().withNano(0)).append("\n\n");
    text.append(String.format("Machine: %d cores, Java %s, Spark master %s. Topic: shop order events (JSON, about"
        + " 230 B), %d partitions. Command: `bin/tributary bench --records %s --partitions %d%s%s`.%n%n",
        Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"),
        SparkSession.active().sparkContext().master(), partitions,
        String.join(",", sizes.stream().map(String::valueOf).toList()), partitions,
        tableProperties.isEmpty() ? "" : " --table-properties " + tableProperties,
        formats.equals(List.of(TableFormat.ICEBERG)) ? "" : " --formats " + String.join(",",
            formats.stream().map(ConfigNames::of).toList())));
    text.append("Rates are records per second over the micro-batches' trigger time (read, write, commit);"
        + " the ceiling is ConsumerPerformance's fetch rate.\n\n");
    text.append("| records | mode | format | consumer ceiling | Spark noop | bronze | bronze / noop | bronze / ceiling"
        + " | data files per commit | table commits per batch |\n");
    text.append("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Result result : results) {
      text.append(String.format("| %,d | %s | %s | %s | %s | %s | %.2f | %.2f | %.1f | %.2f |%n", result.records(),
          result.mode(), ConfigNames.of(result.format()), result.ceiling().formatted(), result.noop().formatted(), result.bronze().formatted(),
          result.bronze().perSecond() / result.noop().perSecond(),
          result.bronze().perSecond() / result.ceiling().perSecond(), result.filesPerCommit(),
          result.snapshotsPerCommit()));
    }
    return text.toString();
  }
}
