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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
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
  private final int parallelism;
  /** Every non-empty silver micro-batch in order: input rows and duration. */
  private final List<long[]> history = new java.util.concurrent.CopyOnWriteArrayList<>();

  private DatabaseBenchmark(BenchmarkWorkspace workspace, int tables, int rows, int parallelism) {
    this.parallelism = parallelism;
    this.workspace = workspace;
    this.spark = workspace.spark();
    this.tables = tables;
    this.rows = rows;
  }

  public static void main(String[] args) throws Exception {
    Arguments options = BenchmarkWorkspace.arguments("bench-database", args, Set.of("tables", "rows",
        "merge-parallelism"), """
        A whole database from one block: one topic per source table, bronze from one pattern source and silver from
        one database block, continuously; streaming queries, driver heap, the batch touching every table against
        the batch touching one, and a new table's time from its first change to its silver table.
          --tables L              table counts, one run each (default 50; e.g. 50,200)
          --rows N                snapshot rows per table (default 20)
          --merge-parallelism L   tables merged side by side, one run each (default 4; e.g. 1,4)
        """);
    List<Integer> counts = BenchmarkWorkspace.positives(options, "tables", "50").stream().map(Long::intValue)
        .toList();
    List<Integer> parallelisms = BenchmarkWorkspace.positives(options, "merge-parallelism", "4").stream()
        .map(Long::intValue).toList();
    int rows = (int) BenchmarkWorkspace.positive(options, "rows", "20");
    StringBuilder report = new StringBuilder();
    for (int tables : counts) {
      for (int parallelism : parallelisms) {
        // A catalog of its own per run: the session, and the catalogs it has loaded, outlive a run.
        try (BenchmarkWorkspace workspace = BenchmarkWorkspace.open("database-" + tables, "catalog.name = lake_"
            + tables + "_" + parallelism)) {
          LocalKafkaBroker broker = LocalKafkaBroker.start(workspace.folder().resolve("kafka"),
              Map.of("log.retention.ms", "-1"));
          try {
            report.append(new DatabaseBenchmark(workspace, tables, rows, parallelism).run(broker)).append('\n');
            workspace.report(report.toString());
          } finally {
            LocalKafkaBroker.find(workspace.folder().resolve("kafka")).ifPresent(LocalKafkaBroker::stop);
          }
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
    List<ProducerRecord<byte[], byte[]>> snapshot = new ArrayList<>();
    for (DebeziumJsonTable table : source) {
      for (int id = 1; id <= rows; id++) {
        Map<String, Object> row = row(id, "row " + id, 0, now);
        snapshot.add(new ProducerRecord<>(table.topic(), table.key(row), table.change("r", null, row, ++lsn, now)));
      }
    }
    send(broker, snapshot);
    TributaryConfig config = workspace.config("kafka.bootstrap-servers = \"" + broker.bootstrapServers() + "\"\n"
        + "bronze.sources.db { pattern = \"" + SERVER + "\\\\..*\", table = \"bronze.db\", trigger = \"1 s\" }\n"
        + "silver.databases.db { source = \"bronze.db\", table = \"silver.db_{table}\", trigger = \"1 s\","
        + " merge-parallelism = " + parallelism + " }\n");
    spark.streams().addListener(new StreamingQueryListener() {
      @Override
      public void onQueryStarted(QueryStartedEvent event) {}

      @Override
      public void onQueryProgress(QueryProgressEvent event) {
        if ("silver-database-db".equals(event.progress().name()) && event.progress().numInputRows() > 0) {
          history.add(new long[] {event.progress().numInputRows(), event.progress().batchDuration()});
        }
      }

      @Override
      public void onQueryTerminated(QueryTerminatedEvent event) {}
    });
    long heapBefore = usedHeap();
    new BronzeIngestJob(spark, config).createTables();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread bronze = new Thread(() -> run(() -> new BronzeIngestJob(spark, config).runContinuously(), failure), "bronze");
    Thread silver = new Thread(() -> run(() -> new SilverMergeJob(spark, config).runContinuously(), failure), "silver");
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

      // One change in every table (bronze may land them in more than one commit, so silver in more than one
      // batch: the batches until all have arrived are counted); then one change in one table.
      long at = System.currentTimeMillis();
      int before = history.size();
      List<ProducerRecord<byte[], byte[]>> changes = new ArrayList<>();
      for (DebeziumJsonTable table : source) {
        changes.add(new ProducerRecord<>(table.topic(), table.key(row(1, "", 0, at)), table.change("u",
            row(1, "row 1", 0, at), row(1, "row 1", 1, at), ++lsn, at)));
      }
      send(broker, changes);
      List<long[]> every = awaitRowsInBatches(before, tables, failure);
      long everyMillis = every.stream().mapToLong(batch -> batch[1]).sum();
      figures.put("one change in every table (" + tables + " changes): silver batches, total time",
          every.size() + " (" + String.join(" + ", every.stream().map(batch -> batch[0] + " rows").toList()) + "), "
              + String.format(Locale.ROOT, "%,d ms", everyMillis));
      before = history.size();
      DebeziumJsonTable first = source.get(0);
      send(broker, List.of(new ProducerRecord<>(first.topic(), first.key(row(2, "", 0, at)), first.change("u",
          row(2, "row 2", 0, at), row(2, "row 2", 1, at), ++lsn, at))));
      long one = awaitRowsInBatches(before, 1, failure).get(0)[1];
      figures.put("batch touching one table (1 change)", String.format(Locale.ROOT, "%,d ms", one));
      figures.put("per table ((total - batches x one-table batch) / (tables - batches))", String.format(Locale.ROOT,
          "%,d ms", (everyMillis - every.size() * one) / Math.max(1, tables - every.size())));

      // A table that appears while the pipeline runs.
      DebeziumJsonTable fresh = table("t_new");
      Topics.create(client, List.of(fresh.topic()), 1, Map.of());
      long sent = System.nanoTime();
      Map<String, Object> freshRow = row(1, "new", 0, System.currentTimeMillis());
      send(broker, List.of(new ProducerRecord<>(fresh.topic(), fresh.key(freshRow), fresh.change("c", null, freshRow,
          ++lsn, System.currentTimeMillis()))));
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
    StringBuilder text = new StringBuilder(String.format(Locale.ROOT, "## %d tables (%d snapshot rows each),"
        + " merge-parallelism %d%n%n", tables, rows, parallelism));
    text.append("`bin/tributary bench-database --tables ").append(tables).append(" --rows ").append(rows)
        .append(" --merge-parallelism ").append(parallelism)
        .append("`, ").append(Instant.now()).append(", ").append(Runtime.getRuntime().availableProcessors())
        .append(" cores, Java ").append(System.getProperty("java.version")).append(", local[*], heap max ")
        .append(mib(Runtime.getRuntime().maxMemory())).append("; Spark settings: ").append(workspace.sparkSettings())
        .append("; bronze and silver triggers 1 s, one bronze source (pattern) and one silver database block.\n\n");
    text.append("| measure | value |\n|---|---:|\n");
    figures.forEach((name, value) -> text.append("| ").append(name).append(" | ").append(value).append(" |\n"));
    text.append("\nSilver batches (input rows: durations ms): ").append(batchesByRows()).append('\n');
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

  /**
   * Sends and waits for every acknowledgement: right after topics are created a send can fail (a partition without
   * a leader yet), and a record the benchmark believes sent but Kafka never took would stall the run.
   */
  private static void send(LocalKafkaBroker broker, List<ProducerRecord<byte[], byte[]>> records) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
        broker.bootstrapServers(), "linger.ms", 20, "acks", "all", "enable.idempotence", true,
        "delivery.timeout.ms", 300_000), new ByteArraySerializer(), new ByteArraySerializer())) {
      List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> sent = new ArrayList<>();
      for (ProducerRecord<byte[], byte[]> record : records) {
        sent.add(producer.send(record));
      }
      for (java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata> ack : sent) {
        ack.get();
      }
    }
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
    String name = workspace.config().catalog().name() + ".silver.db_" + table.name();
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

  /** The silver batches after the first {@code from} until they hold {@code inputRows} rows in all. */
  private List<long[]> awaitRowsInBatches(int from, long inputRows, AtomicReference<Throwable> failure)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(30).toNanos();
    while (true) {
      List<long[]> since = history.subList(from, history.size());
      if (since.stream().mapToLong(batch -> batch[0]).sum() >= inputRows) {
        return List.copyOf(since);
      }
      if (failure.get() != null) {
        throw new IllegalStateException("a job failed", failure.get());
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("silver did not get " + inputRows + " rows; batches: " + batchesByRows());
      }
      Thread.sleep(200);
    }
  }

  private String batchTime(long inputRows) {
    List<Long> durations = history.stream().filter(batch -> batch[0] == inputRows).map(batch -> batch[1]).toList();
    return durations.isEmpty() ? "(not one batch: " + batchesByRows() + ")"
        : String.format(Locale.ROOT, "%,d ms", median(durations));
  }

  /** The silver batches so far, input rows to durations (ms). */
  private Map<Long, List<Long>> batchesByRows() {
    Map<Long, List<Long>> byRows = new java.util.TreeMap<>();
    history.forEach(batch -> byRows.computeIfAbsent(batch[0], n -> new ArrayList<>()).add(batch[1]));
    return byRows;
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
