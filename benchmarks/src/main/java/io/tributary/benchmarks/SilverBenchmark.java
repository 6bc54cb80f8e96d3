package io.tributary.benchmarks;

import io.tributary.bronze.BronzeIngestJob;
import io.tributary.common.cli.Arguments;
import io.tributary.common.config.ConfigNames;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.Tables;
import io.tributary.silver.SchemaRegistryStandIn;
import io.tributary.silver.SilverMergeJob;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.metrics.source.CodegenMetrics;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * Silver merge throughput: Debezium changes merged from bronze into a silver table that already holds {@code keys}
 * keys; the changes are 65% inserts of new keys, 30% updates and 5% deletes of existing keys, in LSN order. Bronze
 * is written directly (Kafka is not on this path: silver reads bronze). The ceiling, measured in the same run, reads
 * the same bronze rows, parses them and appends the after images to a plain Iceberg table: what the merge costs
 * beyond that is the merge. The final table is checked against the state computed from bronze by another query.
 *
 * <p>Then {@code small-batches} batches of 1,000 changes, each merged by its own run: the cost of a small batch.
 *
 * <p>Run with {@code bin/tributary bench-silver [--keys N] [--changes N] [--max-rows-per-trigger N]
 * [--encodings json,avro] [--formats iceberg,delta] [--history current,scd2] [--small-batches N]
 * [--small-batch-changes mixed,inserts]}; with both encodings the same changes also go through the Avro decoder ({@link
 * AvroChangeEvents}), each entity timed alone.
 */
public final class SilverBenchmark {
  /** Silver's shipped bound of bronze rows per micro-batch, the benchmark's default batch size. */
  private static final long SHIPPED_MAX_ROWS = com.typesafe.config.ConfigFactory.defaultReference()
      .getLong("tributary.silver.defaults.max-rows-per-trigger");
  private static final String SCHEMA = "id BIGINT, name STRING, email STRING, country STRING, tier STRING,"
      + " credit_limit DECIMAL(10,2), created_at TIMESTAMP, updated_at TIMESTAMP";

  /**
   * How the changes reach bronze: Debezium JSON without schemas and the entity's columns written by hand (the
   * cheapest JSON path), or Debezium Avro through a schema registry with columns and key taken from the stream (the
   * path such a deployment takes).
   */
  enum Encoding {
    JSON("customers", "bronze.cdc"),
    AVRO("customers_avro", "bronze.cdc_avro");

    final String entity;
    final String bronze;

    Encoding(String entity, String bronze) {
      this.entity = entity;
      this.bronze = bronze;
    }

    String silver() {
      return "lake.silver." + entity;
    }
  }

  private final BenchmarkWorkspace workspace;
  private final SparkSession spark;
  private final AvroChangeEvents avro;
  private final long maxRows;
  private final long buckets;

  private SilverBenchmark(BenchmarkWorkspace workspace, AvroChangeEvents avro, long maxRows, long buckets) {
    this.workspace = workspace;
    this.spark = workspace.spark();
    this.avro = avro;
    this.maxRows = maxRows;
    this.buckets = buckets;
  }

  public static void main(String[] args) throws Exception {
    Arguments options = BenchmarkWorkspace.arguments("bench-silver", args,
        Set.of("keys", "changes", "max-rows-per-trigger", "encodings", "formats", "small-batches",
            "small-batch-changes", "history", "buckets"), """
        Silver merge throughput against the ceiling of the same read, parse and append without a merge; the initial
        load; small batches.
          --keys N                   keys in the table (default 1000000)
          --changes N                changes merged (default 1000000)
          --max-rows-per-trigger N   batch size (default: silver's shipped max-rows-per-trigger)
          --encodings L              json, avro or both: json,avro (default json)
          --formats L                the silver table's format: iceberg, delta or both: iceberg,delta
                                     (default iceberg)
          --history L                the entity's history: current (one row per key), scd2 (a row per
                                     version) or both: current,scd2 (default current)
          --small-batches N          small batches timed after the large ones (default 21)
          --small-batch-changes L    what the small batches hold: mixed (65% inserts of new keys, 30% updates
                                     and 5% deletes of existing ones), inserts (of new keys only: an insert
                                     stream), or both in turn: mixed,inserts (default mixed)
          --buckets N                the Iceberg silver table's bucket count (default 8, as shipped)
        """);
    long keys = BenchmarkWorkspace.positive(options, "keys", "1000000");
    long changes = BenchmarkWorkspace.positive(options, "changes", "1000000");
    long maxRows = BenchmarkWorkspace.positive(options, "max-rows-per-trigger", String.valueOf(SHIPPED_MAX_ROWS));
    long smallBatches = BenchmarkWorkspace.positive(options, "small-batches", "21");
    long buckets = BenchmarkWorkspace.positive(options, "buckets", "8");
    List<Encoding> encodings = BenchmarkWorkspace.values(options, "encodings", "json", Encoding.class);
    List<TableFormat> formats = BenchmarkWorkspace.values(options, "formats", "iceberg", TableFormat.class);
    List<SilverEntity.History> histories = BenchmarkWorkspace.values(options, "history", "current",
        SilverEntity.History.class);
    List<SmallChanges> smallChanges = BenchmarkWorkspace.values(options, "small-batch-changes", "mixed",
        SmallChanges.class);
    // Confluent's registry is not served here: the tests' stand-in answers the Confluent REST API on 127.0.0.1.
    // The decoder fetches each schema id once and caches it, so the registry is off the measured path.
    try (SchemaRegistryStandIn registry = new SchemaRegistryStandIn();
        BenchmarkWorkspace workspace = BenchmarkWorkspace.open("silver",
            "bronze.sources.cdc { topic = \"bench.customers\", table = \"bronze.cdc\" }\n"
                + "bronze.sources.cdc_avro { topic = \"bench.customers_avro\", table = \"bronze.cdc_avro\" }\n"
                + "schema-registry.url = \"" + registry.url() + "\"")) {
      AvroChangeEvents avro = new AvroChangeEvents(registry.register(AvroChangeEvents.KEY_SCHEMA),
          registry.register(AvroChangeEvents.VALUE_SCHEMA));
      workspace.report(new SilverBenchmark(workspace, avro, maxRows, buckets).run(keys, changes, encodings, formats,
          histories, smallBatches, smallChanges));
    }
    System.exit(0);
  }

  /**
   * The bronze tables to fill: the measured encodings', and always the JSON one, which the ceiling and the check
   * read (so {@code --encodings avro} alone has both).
   */
  private static Set<Encoding> written(List<Encoding> encodings) {
    Set<Encoding> written = java.util.EnumSet.of(Encoding.JSON);
    written.addAll(encodings);
    return written;
  }

  /** What the small batches hold. */
  enum SmallChanges {
    /** As the large batches: 65% inserts of new keys, 30% updates and 5% deletes of existing keys. */
    MIXED,
    /** Inserts of new keys only (an insert stream, an append-mostly table): no file holds their keys. */
    INSERTS
  }

  /** Small batches of one kind into one variant's table. */
  record SmallRun(Variant variant, SmallChanges changes) {
    @Override
    public String toString() {
      return variant + (changes == SmallChanges.INSERTS ? ", inserts only," : "");
    }
  }

  /** One measured entity: an encoding of the changes, merged into a silver table of one format. */
  record Variant(Encoding encoding, TableFormat format, SilverEntity.History history) {
    Variant(Encoding encoding, TableFormat format) {
      this(encoding, format, SilverEntity.History.CURRENT);
    }

    String entity() {
      return encoding.entity + (format == TableFormat.DELTA ? "_delta" : "")
          + (history == SilverEntity.History.SCD2 ? "_scd2" : "");
    }

    @Override
    public String toString() {
      return encoding + (format == TableFormat.DELTA ? " into Delta" : "")
          + (history == SilverEntity.History.SCD2 ? " (SCD2 history)" : "");
    }
  }

  /** The config of one variant's entity alone, so that each is timed on its own. */
  private TributaryConfig config(Variant variant) {
    String columns = variant.encoding() == Encoding.JSON ? ", key = [id], schema = \"" + SCHEMA + "\"" : "";
    return workspace.config("silver.format = " + ConfigNames.of(variant.format()) + "\n"
        + "silver.entities." + variant.entity() + " { source = \"" + variant.encoding().bronze + "\","
        + " decoder = debezium-" + variant.encoding().name().toLowerCase(Locale.ROOT) + ", table = \"silver."
        + variant.entity() + "\", max-rows-per-trigger = " + maxRows + ", buckets = " + buckets + columns
        + ", history = " + ConfigNames.of(variant.history()) + " }");
  }

  /** The SQL name of a variant's silver table. */
  private String silver(Variant variant) {
    TributaryConfig config = config(variant);
    return new Tables(config.catalog()).sqlName(new TableName("silver", variant.entity()), variant.format());
  }

  /** The commits a variant's table holds: Iceberg snapshots, Delta versions. */
  private long commits(Variant variant) {
    return variant.format() == TableFormat.DELTA ? deltaHistory(variant).count()
        : spark.table(silver(variant) + ".snapshots").count();
  }

  private Dataset<Row> deltaHistory(Variant variant) {
    TributaryConfig config = config(variant);
    return io.delta.tables.DeltaTable.forPath(spark, new Tables(config.catalog()).deltaPath(new TableName("silver",
        variant.entity()))).history();
  }

  /**
   * Where Delta's MERGE spent the time of the last {@code count} batches, from its own commit metrics (medians):
   * finding the files the batch touches, writing the new rows and deletion vectors, and materializing the source.
   */
  private String deltaMergePhases(Variant variant, int count) {
    List<Row> merges = deltaHistory(variant).where("operation = 'MERGE'").orderBy(functions.col("version").desc())
        .limit(count).select("operationMetrics").collectAsList();
    java.util.function.Function<String, Long> median = metric -> {
      long[] values = merges.stream().map(row -> row.<String, String>getJavaMap(0).get(metric))
          .filter(java.util.Objects::nonNull).mapToLong(Long::parseLong).sorted().toArray();
      return values.length == 0 ? -1 : values[values.length / 2];
    };
    return String.format("%n%s, Delta's own MERGE metrics, median of the last %d: execution %,d ms = scan for the"
        + " touched files %,d ms + rewrite %,d ms (source materialization %,d ms); target files %,d before skipping,"
        + " %,d after; %,d rows copied, %,d data files and %,d deletion vectors added.%n", variant, merges.size(),
        median.apply("executionTimeMs"), median.apply("scanTimeMs"), median.apply("rewriteTimeMs"),
        median.apply("materializeSourceTimeMs"), median.apply("numTargetFilesBeforeSkipping"),
        median.apply("numTargetFilesAfterSkipping"), median.apply("numTargetRowsCopied"),
        median.apply("numTargetFilesAdded"), median.apply("numTargetDeletionVectorsAdded"));
  }

  /**
   * What one variant's entity did.
   *
   * @param warm the merge over the batches after the first (none for one batch): the first batch of a stream runs
   *     code the JVM has not compiled yet, which a long-running stream pays once and every {@code --once} run again
   */
  private record Measured(Variant variant, long loadMillis, Rate merge, Rate mergeWall, Optional<Rate> warm,
      long commitsBefore) {}

  private String run(long keys, long changes, List<Encoding> encodings, List<TableFormat> formats,
      List<SilverEntity.History> histories, long smallBatches, List<SmallChanges> smallChanges) throws Exception {
    List<Variant> variants = new ArrayList<>();
    for (TableFormat format : formats) {
      for (SilverEntity.History history : histories) {
        encodings.forEach(encoding -> variants.add(new Variant(encoding, format, history)));
      }
    }
    ProgressCollector progress = new ProgressCollector();
    spark.streams().addListener(progress);
    new BronzeIngestJob(spark, workspace.config()).createTables();

    System.out.printf("== bronze: a snapshot of %,d keys (op r)%n", keys);
    for (Encoding encoding : written(encodings)) {
      appendToBronze(encoding, snapshot(keys), 0);
    }
    Map<Variant, Long> loads = new HashMap<>();
    Map<Variant, Long> commitsBefore = new HashMap<>();
    for (Variant variant : variants) {
      long loadStart = System.nanoTime();
      new SilverMergeJob(spark, config(variant)).runUntilCaughtUp();
      loads.put(variant, (System.nanoTime() - loadStart) / 1_000_000);
      System.out.printf("   %s silver initial load: %,d ms%n", variant, loads.get(variant));
      commitsBefore.put(variant, commits(variant));
    }

    System.out.printf("== bronze: %,d changes (65%% inserts, 30%% updates, 5%% deletes)%n", changes);
    for (Encoding encoding : written(encodings)) {
      appendToBronze(encoding, changes(keys, 0, changes), keys);
    }
    List<Measured> measured = new ArrayList<>();
    for (Variant variant : variants) {
      String query = "silver-" + variant.entity();
      int batchesBefore = progress.batches(query).size();
      long mergeStart = System.nanoTime();
      new SilverMergeJob(spark, config(variant)).runUntilCaughtUp();
      long mergeMillis = (System.nanoTime() - mergeStart) / 1_000_000;
      List<ProgressCollector.Batch> batches = progress.batches(query);
      // The changes over the batches' trigger time: a batch's numInputRows counts every scan of its input, and the
      // Avro decoder scans it more than once (schema ids, key schema, decode).
      Rate scanned = Rate.of(batches.subList(batchesBefore, batches.size()));
      Rate merge = new Rate(changes, scanned.millis(), scanned.batches());
      Rate mergeWall = new Rate(changes, mergeMillis, merge.batches());
      // The warm batches' share of the changes: their share of the scanned rows (each batch is scanned as often).
      Optional<Rate> warm = scanned.batches() < 2 ? Optional.empty() : Optional.of(Rate.of(batches.subList(
          batchesBefore + 1, batches.size()))).map(later -> new Rate(Math.round((double) changes * later.records()
              / scanned.records()), later.millis(), later.batches()));
      System.out.printf("   %s merge: %s changes/s over %d batches (%s including start and stop%s)%n", variant,
          merge.formatted(), merge.batches(), mergeWall.formatted(),
          warm.map(rate -> "; " + rate.formatted() + " after the first batch").orElse(""));
      measured.add(new Measured(variant, loads.get(variant), merge, mergeWall, warm, commitsBefore.get(variant)));
    }

    Map<SmallRun, List<ProgressCollector.Batch>> small = new java.util.LinkedHashMap<>();
    long smallFrom = changes;
    for (SmallChanges kind : smallChanges) {
      small.putAll(smallBatches(progress, encodings, variants, keys, smallFrom, smallBatches, kind));
      smallFrom += smallBatches * SMALL_BATCH;
    }

    System.out.println("== ceiling: read the same bronze rows, parse, append the after images to a plain table");
    long ceilingStart = System.nanoTime();
    spark.sql("CREATE TABLE lake.silver.ceiling USING iceberg AS SELECT env.after.* FROM (SELECT from_json(CAST(value"
        + " AS STRING), 'STRUCT<after: STRUCT<" + SCHEMA.replace(" BIGINT", ": BIGINT").replace(" STRING", ": STRING")
            .replace(" DECIMAL", ": DECIMAL").replace(" TIMESTAMP", ": TIMESTAMP") + ">>') AS env"
        + " FROM lake.bronze.cdc WHERE offset >= " + keys + " AND offset < " + (keys + changes) + ")");
    Rate ceiling = new Rate(changes, (System.nanoTime() - ceilingStart) / 1_000_000, 1);
    System.out.printf("   ceiling: %s rows/s%n", ceiling.formatted());

    StringBuilder text = new StringBuilder();
    text.append("# Silver merge throughput, ").append(LocalDateTime.now().withNano(0)).append("\n\n");
    text.append(String.format("Machine: %d cores, Java %s, Spark master %s. Command: `bin/tributary bench-silver"
        + " --keys %d --changes %d --max-rows-per-trigger %d --encodings %s --formats %s --small-batches %d"
        + " --small-batch-changes %s --history %s --buckets %d`.%n%n",
        Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), spark.sparkContext().master(),
        keys, changes, maxRows, String.join(",", encodings.stream().map(ConfigNames::of).toList()),
        String.join(",", formats.stream().map(ConfigNames::of).toList()), smallBatches,
        String.join(",", smallChanges.stream().map(ConfigNames::of).toList()),
        String.join(",", histories.stream().map(ConfigNames::of).toList()), buckets));
    text.append("Spark settings (conf/application.conf, as `bin/tributary` runs): ").append(workspace.sparkSettings())
        .append(".\n\n");
    text.append(String.format("A silver table of %,d keys (initial load of a snapshot), then %,d Debezium changes"
        + " (65%% inserts, 30%% updates, 5%% deletes) merged with `--once`. JSON: the JSON converter without"
        + " schemas, columns written in the entity. Avro: the Avro converter's wire format (schema ids from a"
        + " Confluent-compatible registry: the tests' stand-in, fetched once per id), columns and key from the"
        + " stream. Bronze is Iceberg; each silver table is Iceberg (format 3, bucket(" + buckets + ", id)) or Delta"
        + " (deletion vectors, not partitioned), as Tributary creates them. Each variant runs alone, in the order"
        + " listed, in one JVM.%n%n", keys, changes));
    text.append("| measure | rate | note |\n|---|---:|---|\n");
    for (Measured run : measured) {
      String name = run.variant().toString();
      text.append(String.format("| %s initial load | %,.0f rows/s | %,d ms |%n", name,
          keys * 1000.0 / run.loadMillis(), run.loadMillis()));
      text.append(String.format("| %s merge (micro-batches) | %s changes/s | %d batches, %,d ms in triggers;"
          + " / ceiling %.2f |%n", name, run.merge().formatted(), run.merge().batches(), run.merge().millis(),
          run.merge().perSecond() / ceiling.perSecond()));
      text.append(String.format("| %s merge (wall, with stream start and stop) | %s changes/s | %,d ms |%n", name,
          run.mergeWall().formatted(), run.mergeWall().millis()));
      run.warm().ifPresent(warm -> text.append(String.format("| %s merge after the first batch (code compiled) |"
          + " %s changes/s | %d batches, %,d ms in triggers; / ceiling %.2f |%n", name, warm.formatted(),
          warm.batches(), warm.millis(), warm.perSecond() / ceiling.perSecond())));
    }
    text.append(String.format("| ceiling: parse JSON and append, no merge | %s rows/s | %,d ms |%n",
        ceiling.formatted(), ceiling.millis()));
    small.forEach((run, batches) -> text.append(String.format("| %s batch of %,d changes, median of %d | %,d ms"
        + " trigger | %,d ms of it in the batch (decode, checks, merge, commit); slowest %,d ms; target <= 1,500 ms:"
        + " %s; classes compiled per run: median %d |%n", run, SMALL_BATCH, batches.size(),
        median(batches, ProgressCollector.Batch::millis), median(batches, ProgressCollector.Batch::sinkMillis),
        batches.stream().mapToLong(ProgressCollector.Batch::millis).max().orElse(0),
        median(batches, ProgressCollector.Batch::millis) <= 1500 ? "met" : "NOT met",
        medianOf(compiledPerSmallRun.getOrDefault(run, List.of())))));
    small.forEach((run, batches) -> {
      if (run.variant().format() == TableFormat.DELTA && run.changes() == SmallChanges.MIXED) {
        text.append(deltaMergePhases(run.variant(), batches.size()));
      }
    });
    Measured first = measured.get(0);
    text.append(String.format("%nMerge / ceiling (%s): %.2f. Target: >= 100,000 changes/s: %s.%n",
        first.variant(), first.merge().perSecond() / ceiling.perSecond(),
        first.merge().perSecond() >= 100_000 ? "met" : "NOT met"));
    for (Measured run : measured) {
      if (run.variant().history() == SilverEntity.History.SCD2) {
        text.append(String.format("%s: merge / ceiling %.2f. Target for history: >= 50,000 changes/s: %s.%n",
            run.variant(), run.merge().perSecond() / ceiling.perSecond(),
            run.merge().perSecond() >= 50_000 ? "met" : "NOT met"));
      }
    }
    for (Encoding encoding : encodings) {
      Optional<Measured> iceberg = measuredOf(measured, new Variant(encoding, TableFormat.ICEBERG));
      Optional<Measured> delta = measuredOf(measured, new Variant(encoding, TableFormat.DELTA));
      if (iceberg.isPresent() && delta.isPresent()) {
        text.append(String.format("%s, Delta / Iceberg: merge %.2f, initial load %.2f (rates; target for the merge:"
            + " Delta within 1.5x of Iceberg, at least 0.67: %s).%n", encoding,
            delta.get().merge().perSecond() / iceberg.get().merge().perSecond(),
            (double) iceberg.get().loadMillis() / delta.get().loadMillis(),
            delta.get().merge().perSecond() / iceberg.get().merge().perSecond() >= 1 / 1.5 ? "met" : "NOT met"));
      }
    }
    for (TableFormat format : formats) {
      Optional<Measured> json = measuredOf(measured, new Variant(Encoding.JSON, format));
      Optional<Measured> avroRun = measuredOf(measured, new Variant(Encoding.AVRO, format));
      if (json.isPresent() && avroRun.isPresent()) {
        text.append(String.format("Avro / JSON%s: merge %.2f, initial load %.2f (rates; above 1, Avro is faster).%n",
            format == TableFormat.DELTA ? " (Delta)" : "", avroRun.get().merge().perSecond()
                / json.get().merge().perSecond(), (double) json.get().loadMillis() / avroRun.get().loadMillis()));
      }
    }
    text.append('\n');
    for (Measured run : measured) {
      text.append(String.format("%s: %s Final table: %,d rows, %,d live. %s%n", run.variant(), commitStats(run),
          spark.sql("SELECT count(*) FROM " + silver(run.variant())).first().getLong(0),
          spark.sql("SELECT count_if(" + live(run.variant()) + ") FROM " + silver(run.variant())).first().getLong(0),
          verify(run.variant())));
    }
    return text.toString();
  }

  private static Optional<Measured> measuredOf(List<Measured> measured, Variant variant) {
    return measured.stream().filter(run -> run.variant().equals(variant)).findFirst();
  }

  /** The commits of the change phase and what each added on average. */
  private String commitStats(Measured run) {
    if (run.variant().format() == TableFormat.DELTA) {
      Row files = deltaHistory(run.variant()).where("version >= " + run.commitsBefore())
          .selectExpr("avg(CAST(operationMetrics['numTargetFilesAdded'] AS BIGINT))",
              "avg(CAST(operationMetrics['numTargetDeletionVectorsAdded'] AS BIGINT))", "count(*)").first();
      return String.format("commits of the change phase: %d; per commit on average %.1f data files and %.1f"
          + " deletion vectors added.", files.getLong(2), files.isNullAt(0) ? 0 : files.getDouble(0),
          files.isNullAt(1) ? 0 : files.getDouble(1));
    }
    Row files = spark.sql("SELECT avg(CAST(summary['added-data-files'] AS BIGINT)),"
        + " avg(coalesce(CAST(summary['added-delete-files'] AS BIGINT), 0)), count(*) FROM"
        + " (SELECT * FROM " + silver(run.variant()) + ".snapshots ORDER BY committed_at OFFSET "
        + run.commitsBefore() + ")").first();
    return String.format("commits of the change phase: %d; per commit on average %.1f data files and %.1f delete"
        + " files added.", files.getLong(2), files.isNullAt(0) ? 0 : files.getDouble(0),
        files.isNullAt(1) ? 0 : files.getDouble(1));
  }

  /** The condition of a live row: not deleted, and in a history table the current version. */
  private static String live(Variant variant) {
    return variant.history() == SilverEntity.History.SCD2 ? "_is_current AND NOT _is_deleted" : "NOT _is_deleted";
  }

  /** The state computed from bronze by a separate query (latest change per key by LSN) against silver. */
  private String verify(Variant variant) {
    Row expected = spark.sql("SELECT count(*), sum(hash(id, name)) FROM (SELECT env.op, coalesce(env.after.id,"
        + " env.before.id) AS id, env.after.name AS name, row_number() OVER (PARTITION BY coalesce(env.after.id,"
        + " env.before.id) ORDER BY env.source.lsn DESC) AS n FROM (SELECT from_json(CAST(value AS STRING),"
        + " 'STRUCT<op: STRING, source: STRUCT<lsn: BIGINT>, before: STRUCT<id: BIGINT>,"
        + " after: STRUCT<id: BIGINT, name: STRING>>') AS env FROM lake.bronze.cdc)) WHERE n = 1 AND op <> 'd'")
        .first();
    Row actual = spark.sql("SELECT count(*), sum(hash(id, name)) FROM " + silver(variant)
        + " WHERE " + live(variant)).first();
    if (!expected.equals(actual)) {
      throw new IllegalStateException(silver(variant) + " differs from the state computed from bronze: expected "
          + expected + ", got " + actual);
    }
    return "Checked: live rows and their content hash equal the latest change per key computed from bronze.";
  }

  /** Changes per small batch: what a stream sees between two triggers at a few hundred changes per second. */
  private static final long SMALL_BATCH = 1000;

  /**
   * Classes Spark compiled in each small batch's run (stream start and stop included): code generated again for
   * every batch costs Janino's compile and then the JIT's, on the driver and in the tasks.
   */
  private final Map<SmallRun, List<Long>> compiledPerSmallRun = new java.util.LinkedHashMap<>();

  /**
   * Batches of {@value #SMALL_BATCH} changes after the large ones, each appended to bronze and merged by its own
   * {@code --once} run into each format's table of the first encoding (about {@code keys} keys): what each batch
   * costs when it is small, measured as the trigger's time (Spark's progress), so the stream's start and stop are
   * left out.
   */
  private Map<SmallRun, List<ProgressCollector.Batch>> smallBatches(ProgressCollector progress,
      List<Encoding> encodings, List<Variant> variants, long keys, long first, long count, SmallChanges kind)
      throws Exception {
    List<Variant> timed = variants.stream().filter(variant -> variant.encoding() == encodings.get(0)).toList();
    System.out.printf("== %d batches of %,d changes (%s) each into the tables of %s%n", count, SMALL_BATCH,
        ConfigNames.of(kind), timed);
    Map<SmallRun, List<ProgressCollector.Batch>> measured = new java.util.LinkedHashMap<>();
    for (long round = 0; round < count; round++) {
      long from = first + round * SMALL_BATCH;
      for (Encoding written : written(encodings)) {
        appendToBronze(written, kind == SmallChanges.INSERTS ? inserts(keys, from, SMALL_BATCH)
            : changes(keys, from, SMALL_BATCH), keys);
      }
      for (Variant variant : timed) {
        String query = "silver-" + variant.entity();
        int before = progress.batches(query).size();
        long compiledBefore = CodegenMetrics.METRIC_COMPILATION_TIME().getCount();
        new SilverMergeJob(spark, config(variant)).runUntilCaughtUp();
        compiledPerSmallRun.computeIfAbsent(new SmallRun(variant, kind), v -> new ArrayList<>())
            .add(CodegenMetrics.METRIC_COMPILATION_TIME().getCount() - compiledBefore);
        List<ProgressCollector.Batch> batches = progress.batches(query);
        measured.computeIfAbsent(new SmallRun(variant, kind), v -> new ArrayList<>())
            .addAll(batches.subList(before, batches.size()));
      }
    }
    for (Variant other : variants) {
      if (!timed.contains(other)) {
        new SilverMergeJob(spark, config(other)).runUntilCaughtUp(); // the same changes, for the final check
      }
    }
    measured.forEach((run, batches) -> System.out.printf("   %s: median trigger %,d ms (in the batch %,d ms),"
        + " slowest %,d ms; classes compiled per run %s%n", run, median(batches, ProgressCollector.Batch::millis),
        median(batches, ProgressCollector.Batch::sinkMillis),
        batches.stream().mapToLong(ProgressCollector.Batch::millis).max().orElse(0), compiledPerSmallRun.get(run)));
    return measured;
  }

  private static long medianOf(List<Long> values) {
    return values.isEmpty() ? 0 : values.stream().sorted().toList().get(values.size() / 2);
  }

  private static long median(List<ProgressCollector.Batch> batches,
      java.util.function.ToLongFunction<ProgressCollector.Batch> value) {
    return medianOf(batches.stream().map(value::applyAsLong).toList());
  }

  private String snapshot(long keys) {
    return "SELECT id AS key_id, 'r' AS op, id AS lsn, id AS i FROM range(1, " + (keys + 1) + ")";
  }

  /** Inserts of new keys only, numbered as {@link #changes} numbers its inserts. */
  private String inserts(long keys, long from, long changes) {
    return "SELECT " + keys + " + 1 + i AS key_id, 'c' AS op, " + (keys + 10) + " + i AS lsn, i FROM (SELECT id AS i"
        + " FROM range(" + from + ", " + (from + changes) + "))";
  }

  /** 1 in 20 a delete, 6 in 20 an update (of an existing key), the rest inserts of new keys. */
  private String changes(long keys, long from, long changes) {
    return "SELECT CASE WHEN i % 20 < 7 THEN pmod(xxhash64(i), " + keys + ") + 1 ELSE " + keys + " + 1 + i END AS key_id,"
        + " CASE WHEN i % 20 = 0 THEN 'd' WHEN i % 20 < 7 THEN 'u' ELSE 'c' END AS op, " + (keys + 10) + " + i AS lsn,"
        + " i FROM (SELECT id AS i FROM range(" + from + ", " + (from + changes) + "))";
  }

  /** The changes of {@code source} in bronze, as the encoding writes them, at offsets from {@code first}. */
  private void appendToBronze(Encoding encoding, String source, long first) throws Exception {
    if (encoding == Encoding.AVRO) {
      appendAvroToBronze(source, first);
    } else {
      appendJsonToBronze(source, first);
    }
  }

  /** Debezium envelopes (Avro converter, Confluent framing) for the rows of {@code source}. */
  private void appendAvroToBronze(String source, long first) throws Exception {
    spark.sql(source).mapPartitions(avro.encoder(), Encoders.row(AvroChangeEvents.FRAMED))
        .createOrReplaceTempView("avro_changes");
    spark.sql("SELECT 'bench.customers_avro' AS topic, CAST(pmod(key_id, 2) AS INT) AS partition, " + first
        + " + i AS offset, timestamp_millis(1764000000000 + i) AS kafka_timestamp, key, value,"
        + " CAST(NULL AS ARRAY<STRUCT<key: STRING, value: BINARY>>) AS headers, current_timestamp() AS ingested_at"
        + " FROM avro_changes ORDER BY i")
        .repartition(8)
        .sortWithinPartitions("offset")
        .writeTo("lake.bronze.cdc_avro").append();
  }

  /** Debezium envelopes (JSON converter, no schema) for the rows of {@code source}, at offsets from {@code first}. */
  private void appendJsonToBronze(String source, long first) throws Exception {
    String image = "named_struct('id', key_id, 'name', concat('name-', key_id, '-', i), 'email', concat('c', key_id,"
        + " '@example.com'), 'country', element_at(array('BE', 'NL', 'DE', 'FR'), CAST(pmod(i, 4) + 1 AS INT)),"
        + " 'tier', element_at(array('bronze', 'silver', 'gold'), CAST(pmod(i, 3) + 1 AS INT)), 'credit_limit',"
        + " concat(CAST(pmod(i, 9000) + 100 AS STRING), '.50'), 'created_at', 1700000000000000 + key_id,"
        + " 'updated_at', 1764000000000000 + i)";
    spark.sql("SELECT 'bench.customers' AS topic, CAST(pmod(key_id, 2) AS INT) AS partition, " + first + " + i AS offset,"
        + " timestamp_millis(1764000000000 + i) AS kafka_timestamp,"
        + " CAST(to_json(named_struct('id', key_id)) AS BINARY) AS key,"
        + " CAST(to_json(named_struct('before', CASE WHEN op IN ('u', 'd') THEN " + image + " END,"
        + " 'after', CASE WHEN op <> 'd' THEN " + image + " END,"
        + " 'source', named_struct('connector', 'postgresql', 'lsn', lsn, 'ts_ms', 1764000000000 + i), 'op', op, 'ts_ms', 1764000000000 + i))"
        + " AS BINARY) AS value,"
        + " CAST(NULL AS ARRAY<STRUCT<key: STRING, value: BINARY>>) AS headers, current_timestamp() AS ingested_at"
        + " FROM (" + source + ") ORDER BY i")
        .repartition(8)
        .sortWithinPartitions("offset")
        .writeTo("lake.bronze.cdc").append();
  }
}
