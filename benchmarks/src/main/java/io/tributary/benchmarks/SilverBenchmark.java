package io.tributary.benchmarks;

import io.tributary.bronze.BronzeIngestJob;
import io.tributary.common.cli.Arguments;
import io.tributary.common.config.TributaryConfig;
import io.tributary.silver.SilverMergeJob;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Silver merge throughput: Debezium changes merged from bronze into a silver table that already holds {@code keys}
 * keys; the changes are 65% inserts of new keys, 30% updates and 5% deletes of existing keys, in LSN order. Bronze
 * is written directly (Kafka is not on this path: silver reads bronze). The ceiling, measured in the same run, reads
 * the same bronze rows, parses them and appends the after images to a plain Iceberg table: what the merge costs
 * beyond that is the merge. The final table is checked against the state computed from bronze by another query.
 *
 * <p>Run with {@code bin/tributary bench-silver [--keys N] [--changes N] [--max-rows-per-trigger N]}.
 */
public final class SilverBenchmark {
  private static final String SCHEMA = "id BIGINT, name STRING, email STRING, country STRING, tier STRING,"
      + " credit_limit DECIMAL(10,2), created_at TIMESTAMP, updated_at TIMESTAMP";

  private final SparkSession spark;
  private final TributaryConfig config;

  private SilverBenchmark(SparkSession spark, TributaryConfig config) {
    this.spark = spark;
    this.config = config;
  }

  public static void main(String[] args) throws Exception {
    Arguments options = BenchmarkWorkspace.arguments("bench-silver", args,
        Set.of("keys", "changes", "max-rows-per-trigger"));
    long keys = BenchmarkWorkspace.positive(options, "keys", "1000000");
    long changes = BenchmarkWorkspace.positive(options, "changes", "1000000");
    long maxRows = BenchmarkWorkspace.positive(options, "max-rows-per-trigger", "500000");
    try (BenchmarkWorkspace workspace = BenchmarkWorkspace.open("silver",
        "bronze.sources.cdc { topic = \"bench.customers\", table = \"bronze.cdc\" }\n"
            + "silver.entities.customers { source = \"bronze.cdc\", key = [id], table = \"silver.customers\","
            + " max-rows-per-trigger = " + maxRows + ", schema = \"" + SCHEMA + "\" }")) {
      workspace.report(new SilverBenchmark(workspace.spark(), workspace.config()).run(keys, changes, maxRows));
    }
    System.exit(0);
  }

  private String run(long keys, long changes, long maxRows) throws Exception {
    ProgressCollector progress = new ProgressCollector();
    spark.streams().addListener(progress);
    new BronzeIngestJob(spark, config).createTables();

    System.out.printf("== bronze: a snapshot of %,d keys (op r)%n", keys);
    appendToBronze(snapshot(keys), 0);
    long loadStart = System.nanoTime();
    new SilverMergeJob(spark, config).run(true);
    long loadMillis = (System.nanoTime() - loadStart) / 1_000_000;
    System.out.printf("   silver initial load: %,d ms%n", loadMillis);
    long snapshotsBefore = spark.table("lake.silver.customers.snapshots").count();

    System.out.printf("== bronze: %,d changes (65%% inserts, 30%% updates, 5%% deletes)%n", changes);
    appendToBronze(changes(keys, changes), keys);
    int batchesBefore = progress.batches("silver-customers").size();
    long mergeStart = System.nanoTime();
    new SilverMergeJob(spark, config).run(true);
    long mergeMillis = (System.nanoTime() - mergeStart) / 1_000_000;
    List<ProgressCollector.Batch> batches = progress.batches("silver-customers");
    Rate merge = Rate.of(batches.subList(batchesBefore, batches.size()));
    Rate mergeWall = new Rate(changes, mergeMillis, merge.batches());
    System.out.printf("   merge: %s changes/s over %d batches (%s including start and stop)%n", merge.formatted(),
        merge.batches(), mergeWall.formatted());

    System.out.println("== ceiling: read the same bronze rows, parse, append the after images to a plain table");
    long ceilingStart = System.nanoTime();
    spark.sql("CREATE TABLE lake.silver.ceiling USING iceberg AS SELECT env.after.* FROM (SELECT from_json(CAST(value"
        + " AS STRING), 'STRUCT<after: STRUCT<" + SCHEMA.replace(" BIGINT", ": BIGINT").replace(" STRING", ": STRING")
            .replace(" DECIMAL", ": DECIMAL").replace(" TIMESTAMP", ": TIMESTAMP") + ">>') AS env"
        + " FROM lake.bronze.cdc WHERE offset >= " + keys + ")");
    Rate ceiling = new Rate(changes, (System.nanoTime() - ceilingStart) / 1_000_000, 1);
    System.out.printf("   ceiling: %s rows/s%n", ceiling.formatted());

    String check = verify();
    Row files = spark.sql("SELECT avg(CAST(summary['added-data-files'] AS BIGINT)),"
        + " avg(coalesce(CAST(summary['added-delete-files'] AS BIGINT), 0)), count(*) FROM"
        + " (SELECT * FROM lake.silver.customers.snapshots ORDER BY committed_at OFFSET " + snapshotsBefore + ")")
        .first();
    Row table = spark.sql("SELECT count(*), count_if(NOT _is_deleted) FROM lake.silver.customers").first();
    StringBuilder text = new StringBuilder();
    text.append("# Silver merge throughput, ").append(LocalDateTime.now().withNano(0)).append("\n\n");
    text.append(String.format("Machine: %d cores, Java %s, Spark master %s. Command: `bin/tributary bench-silver"
        + " --keys %d --changes %d --max-rows-per-trigger %d`.%n%n", Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"), spark.sparkContext().master(), keys, changes, maxRows));
    text.append(String.format("Silver table of %,d keys (initial load of the snapshot took %,d ms, %,.0f rows/s);"
        + " then %,d Debezium changes (65%% inserts, 30%% updates, 5%% deletes) merged with `--once`.%n%n",
        keys, loadMillis, keys * 1000.0 / loadMillis, changes));
    text.append("| measure | changes/s | note |\n|---|---:|---|\n");
    text.append(String.format("| silver merge (micro-batches) | %s | %d batches, %,d ms in triggers |%n",
        merge.formatted(), merge.batches(), merge.millis()));
    text.append(String.format("| silver merge (wall, with stream start and stop) | %s | %,d ms |%n",
        mergeWall.formatted(), mergeMillis));
    text.append(String.format("| ceiling: parse and append, no merge | %s | %,d ms |%n", ceiling.formatted(),
        ceiling.millis()));
    text.append(String.format("%nMerge / ceiling: %.2f. Target: >= 100,000 changes/s: %s.%n%n",
        merge.perSecond() / ceiling.perSecond(), merge.perSecond() >= 100_000 ? "met" : "NOT met"));
    text.append(String.format("Commits of the change phase: %d; per commit on average %.1f data files and %.1f delete"
        + " files added.%n", files.getLong(2), files.isNullAt(0) ? 0 : files.getDouble(0),
        files.isNullAt(1) ? 0 : files.getDouble(1)));
    text.append(String.format("Final table: %,d rows, %,d live. %s%n", table.getLong(0), table.getLong(1), check));
    return text.toString();
  }

  /** The state computed from bronze by a separate query (latest change per key by LSN) against silver. */
  private String verify() {
    Row expected = spark.sql("SELECT count(*), sum(hash(id, name)) FROM (SELECT env.op, coalesce(env.after.id,"
        + " env.before.id) AS id, env.after.name AS name, row_number() OVER (PARTITION BY coalesce(env.after.id,"
        + " env.before.id) ORDER BY env.source.lsn DESC) AS n FROM (SELECT from_json(CAST(value AS STRING),"
        + " 'STRUCT<op: STRING, source: STRUCT<lsn: BIGINT>, before: STRUCT<id: BIGINT>,"
        + " after: STRUCT<id: BIGINT, name: STRING>>') AS env FROM lake.bronze.cdc)) WHERE n = 1 AND op <> 'd'")
        .first();
    Row actual = spark.sql("SELECT count(*), sum(hash(id, name)) FROM lake.silver.customers WHERE NOT _is_deleted")
        .first();
    if (!expected.equals(actual)) {
      throw new IllegalStateException("silver differs from the state computed from bronze: expected " + expected
          + ", got " + actual);
    }
    return "Checked: live rows and their content hash equal the latest change per key computed from bronze.";
  }

  private String snapshot(long keys) {
    return "SELECT id AS key_id, 'r' AS op, id AS lsn, id AS i FROM range(1, " + (keys + 1) + ")";
  }

  /** 1 in 20 a delete, 6 in 20 an update (of an existing key), the rest inserts of new keys. */
  private String changes(long keys, long changes) {
    return "SELECT CASE WHEN i % 20 < 7 THEN pmod(xxhash64(i), " + keys + ") + 1 ELSE " + keys + " + 1 + i END AS key_id,"
        + " CASE WHEN i % 20 = 0 THEN 'd' WHEN i % 20 < 7 THEN 'u' ELSE 'c' END AS op, " + (keys + 10) + " + i AS lsn,"
        + " i FROM (SELECT id AS i FROM range(0, " + changes + "))";
  }

  /** Debezium envelopes (JSON converter, no schema) for the rows of {@code source}, at offsets from {@code first}. */
  private void appendToBronze(String source, long first) throws Exception {
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
        + " 'source', named_struct('lsn', lsn, 'ts_ms', 1764000000000 + i), 'op', op, 'ts_ms', 1764000000000 + i))"
        + " AS BINARY) AS value,"
        + " CAST(NULL AS ARRAY<STRUCT<key: STRING, value: BINARY>>) AS headers, current_timestamp() AS ingested_at"
        + " FROM (" + source + ") ORDER BY i")
        .repartition(8)
        .sortWithinPartitions("offset")
        .writeTo("lake.bronze.cdc").append();
  }
}
