package io.tributary.benchmarks;

import io.tributary.bronze.BronzeIngestJob;
import io.tributary.common.cli.Arguments;
import io.tributary.common.config.TributaryConfig;
import io.tributary.localstack.DebeziumJsonTable;
import io.tributary.localstack.DebeziumJsonTable.Column;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.Topics;
import io.tributary.silver.SilverMergeJob;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryListener;

/**
 * A whole database onboarded from one block: {@code --tables} source tables (Debezium JSON with schema blocks, one
 * topic each, {@code --rows} snapshot rows each) landed by one bronze source with a topic pattern and kept by one
 * silver database block, bronze and silver running continuously in this JVM (local[*]) with 1 s triggers. Measures
 * the streaming queries, the driver heap (used heap after a full GC) before and after, the time until every table is
 * readable, the silver batch that touches every table (one change each; per-table overhead = its duration / tables)
 * against a batch that touches one, and the time from a new table's first change in Kafka to its silver table being
 * readable with that row.
 */
public final class DatabaseBenchmark {
  private static final String SERVER = "bench";

  private final BenchmarkWorkspace workspace;
  private final SparkSession spark;
  private final int tables;
  private final int rows;
  /** Silver micro-batch durations by input rows, from the query's progress. */
  private final Map<Long, List<Long>> batches = new ConcurrentHashMap<>();

  private DatabaseBenchmark(BenchmarkWorkspace workspace, int tables, int rows) {
    this.workspace = workspace;
    this.spark = workspace.spark();
    this.tables = tables;
    this.rows = rows;
  }

  public static void main(String[] args) throws Exception {
    Arguments options = BenchmarkWorkspace.arguments("bench-database", args, Set.of("tables", "rows"));
    List<Integer> counts = Arrays.stream(options.value("tables").orElse("50").split(",")).map(String::trim)
        .map(Integer::parseInt).toList();
    int rows = (int) BenchmarkWorkspace.positive(options, "rows", "20");
    StringBuilder report = new StringBuilder();
    for (int tables : counts) {
      try (BenchmarkWorkspace workspace = BenchmarkWorkspace.open("database-" + tables, "catalog.name = lake")) {
        LocalKafkaBroker broker = LocalKafkaBroker.start(workspace.folder().resolve("kafka"),
            Map.of("log.retention.ms", "-1"));
        try {
          report.append(new DatabaseBenchmark(workspace, tables, rows).run(broker)).append('\n');
          workspace.report(report.toString());
        } finally {
          LocalKafkaBroker.find(workspace.folder().resolve("kafka")).ifPresent(LocalKafkaBroker::stop);
        }
      }
    }
    System.exit(0);
  }

  private String run(LocalKafkaBroker broker) throws Exception {
    List<DebeziumJsonTable> source = new ArrayList<>();
    for (int i = 1; i <= tables; i++) {
      source.add(table(String.format(Locale.ROOT, "t%03d", i)));
    }
    Map<String, Object> client = Map.of("bootstrap.servers", broker.bootstrapServers());
    Topics.create(client, source.stream().map(DebeziumJsonTable::topic).toList(), 1, Map.of());
    long lsn = 0;
    long now = System.currentTimeMillis();
    try (KafkaProducer<byte[], byte[]> producer = producer(broker)) {
      for (DebeziumJsonTable table : source) {
        for (int id = 1; id <= rows; id++) {
          Map<String, Object> row = row(id, "row " + id, 0, now);
          producer.send(new ProducerRecord<>(table.topic(), table.key(row), table.change("r", null, row, ++lsn, now)));
        }
      }
    }
    TributaryConfig config = workspace.config("kafka.bootstrap-servers = \"" + broker.bootstrapServers() + "\"\n"
        + "bronze.sources.db { pattern = \"" + SERVER + "\\\\..*\", table = \"bronze.db\", trigger = \"1 s\" }\n"
        + "silver.databases.db { source = \"bronze.db\", table = \"silver.db_{table}\", trigger = \"1 s\" }\n");
    spark.streams().addListener(new StreamingQueryListener() {
      @Override
      public void onQueryStarted(QueryStartedEvent event) {}

      @Override
      public void onQueryProgress(QueryProgressEvent event) {
        if ("silver-database-db".equals(event.progress().name()) && event.progress().numInputRows() > 0) {
          batches.computeIfAbsent(event.progress().numInputRows(), n -> new java.util.concurrent.CopyOnWriteArrayList<>())
              .add(event.progress().batchDuration());
        }
      }

      @Override
      public void onQueryTerminated(QueryTerminatedEvent event) {}
    });
    long heapBefore = usedHeap();
    new BronzeIngestJob(spark, config).createTables();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread bronze = new Thread(() -> run(() -> new BronzeIngestJob(spark, config).run(false), failure), "bronze");
    Thread silver = new Thread(() -> run(() -> new SilverMergeJob(spark, config).run(false), failure), "silver");
    long started = System.nanoTime();
    bronze.start();
    silver.start();
    Map<String, String> figures = new LinkedHashMap<>();
    try {
      awaitRows(source.get(source.size() - 1), rows, failure, Duration.ofMinutes(60));
      for (DebeziumJsonTable table : source) {
        awaitRows(table, rows, failure, Duration.ofMinutes(5));
      }
      figures.put("every table readable after start", seconds(System.nanoTime() - started));
      int queries = spark.streams().active().length;
      figures.put("streaming queries (bronze + silver)", String.valueOf(queries));
      figures.put("snapshot batch (" + (tables * rows) + " rows, " + tables + " tables)", batchTime(tables * rows));
      long heapOnboarded = usedHeap();

      // One change in every table, in one batch; then one change in one table.
      long at = System.currentTimeMillis();
      try (KafkaProducer<byte[], byte[]> producer = producer(broker)) {
        for (DebeziumJsonTable table : source) {
          producer.send(new ProducerRecord<>(table.topic(), table.key(row(1, "", 0, at)), table.change("u",
              row(1, "row 1", 0, at), row(1, "row 1", 1, at), ++lsn, at)));
        }
      }
      awaitBatch(tables, failure);
      figures.put("batch touching every table (" + tables + " changes)", batchTime(tables));
      try (KafkaProducer<byte[], byte[]> producer = producer(broker)) {
        DebeziumJsonTable table = source.get(0);
        producer.send(new ProducerRecord<>(table.topic(), table.key(row(2, "", 0, at)), table.change("u",
            row(2, "row 2", 0, at), row(2, "row 2", 1, at), ++lsn, at)));
      }
      awaitBatch(1, failure);
      figures.put("batch touching one table (1 change)", batchTime(1));
      long every = median(batches.get((long) tables));
      long one = median(batches.get(1L));
      figures.put("per-table overhead ((every - one) / (tables - 1))", String.format(Locale.ROOT, "%,d ms",
          (every - one) / Math.max(1, tables - 1)));

      // A table that appears while the pipeline runs.
      DebeziumJsonTable fresh = table("t_new");
      Topics.create(client, List.of(fresh.topic()), 1, Map.of());
      long sent = System.nanoTime();
      try (KafkaProducer<byte[], byte[]> producer = producer(broker)) {
        Map<String, Object> row = row(1, "new", 0, System.currentTimeMillis());
        producer.send(new ProducerRecord<>(fresh.topic(), fresh.key(row), fresh.change("c", null, row, ++lsn,
            System.currentTimeMillis()))).get();
      }
      awaitRows(fresh, 1, failure, Duration.ofMinutes(10));
      figures.put("new table: first change in Kafka to silver table readable", seconds(System.nanoTime() - sent));
      figures.put("driver heap used after full GC: before / every table kept / end",
          mib(heapBefore) + " / " + mib(heapOnboarded) + " / " + mib(usedHeap()));
    } finally {
      for (StreamingQuery query : spark.streams().active()) {
        query.stop();
      }
      bronze.join(120_000);
      silver.join(120_000);
    }
    if (failure.get() != null) {
      throw new IllegalStateException("a job failed", failure.get());
    }
    StringBuilder text = new StringBuilder(String.format(Locale.ROOT, "## %d tables (%d snapshot rows each)%n%n",
        tables, rows));
    text.append("`bin/tributary bench-database --tables ").append(tables).append(" --rows ").append(rows)
        .append("`, ").append(Instant.now()).append(", ").append(Runtime.getRuntime().availableProcessors())
        .append(" cores, Java ").append(System.getProperty("java.version")).append(", local[*], heap max ")
        .append(mib(Runtime.getRuntime().maxMemory())).append("; Spark settings: ").append(workspace.sparkSettings())
        .append("; bronze and silver triggers 1 s, one bronze source (pattern) and one silver database block.\n\n");
    text.append("| measure | value |\n|---|---:|\n");
    figures.forEach((name, value) -> text.append("| ").append(name).append(" | ").append(value).append(" |\n"));
    text.append("\nSilver batches (input rows: durations ms): ").append(new java.util.TreeMap<>(batches)).append('\n');
    return text.toString();
  }

  private static DebeziumJsonTable table(String name) {
    return new DebeziumJsonTable(SERVER, "public", name, List.of(Column.key("id", "int32"), Column.of("name",
        "string"), Column.of("qty", "int32"), Column.micros("updated_at")));
  }

  private static Map<String, Object> row(int id, String name, int qty, long atMillis) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("id", id);
    row.put("name", name);
    row.put("qty", qty);
    row.put("updated_at", atMillis * 1000);
    return row;
  }

  private static KafkaProducer<byte[], byte[]> producer(LocalKafkaBroker broker) {
    return new KafkaProducer<>(Map.of("bootstrap.servers", broker.bootstrapServers(), "linger.ms", 20),
        new ByteArraySerializer(), new ByteArraySerializer());
  }

  private interface Job {
    void run() throws Exception;
  }

  private static void run(Job job, AtomicReference<Throwable> failure) {
    try {
      job.run();
    } catch (Throwable e) {
      failure.compareAndSet(null, e);
    }
  }

  private void awaitRows(DebeziumJsonTable table, long expected, AtomicReference<Throwable> failure, Duration limit)
      throws InterruptedException {
    String name = "lake.silver.db_" + table.name();
    long deadline = System.nanoTime() + limit.toNanos();
    while (System.nanoTime() < deadline) {
      if (failure.get() != null) {
        throw new IllegalStateException("a job failed", failure.get());
      }
      if (spark.catalog().tableExists(name) && spark.table(name).count() >= expected) {
        return;
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException(name + " did not get " + expected + " rows within " + limit);
  }

  private void awaitBatch(long inputRows, AtomicReference<Throwable> failure) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(30).toNanos();
    while (!batches.containsKey(inputRows)) {
      if (failure.get() != null) {
        throw new IllegalStateException("a job failed", failure.get());
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("no silver batch of " + inputRows + " rows; batches: " + batches);
      }
      Thread.sleep(200);
    }
  }

  private String batchTime(long inputRows) {
    List<Long> durations = batches.get(inputRows);
    return durations == null ? "(not one batch: " + batches.keySet() + " rows)"
        : String.format(Locale.ROOT, "%,d ms", median(durations));
  }

  private static long median(List<Long> values) {
    if (values == null || values.isEmpty()) {
      return 0;
    }
    List<Long> sorted = values.stream().sorted().toList();
    return sorted.get(sorted.size() / 2);
  }

  private static long usedHeap() {
    for (int i = 0; i < 2; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%,d MiB", bytes / (1024 * 1024));
  }

  private static String seconds(long nanos) {
    return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
  }
}
