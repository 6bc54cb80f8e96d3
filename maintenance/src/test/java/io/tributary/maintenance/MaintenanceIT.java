package io.tributary.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import io.tributary.bronze.BronzeIngestJob;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.testing.SharedSpark;
import io.tributary.silver.SilverMergeJob;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Maintenance on real tables: compaction of many small files and delete files keeps every row, snapshot expiry
 * spares what a silver stream has not read yet, orphan removal takes only old unreferenced files, and Delta's
 * OPTIMIZE and VACUUM keep the content.
 */
@ExtendWith(SharedSpark.class)
class MaintenanceIT {
  @TempDir Path dir;
  private SparkSession spark;
  private String catalog;

  @BeforeEach
  void catalog(SparkSession spark, TestInfo test) {
    this.spark = spark;
    this.catalog = "maint_" + test.getTestMethod().orElseThrow().getName().toLowerCase();
  }

  /** A config with the shop's orders as bronze source and silver entity, plus {@code extra} HOCON. */
  private TributaryConfig config(String extra) {
    return config(" silver.entities.orders { source = bronze.orders, decoder = json, key = [order_id],"
        + " sequence = [seq], table = silver.orders, max-rows-per-trigger = 1000,"
        + " schema = \"order_id STRING, status STRING, amount DECIMAL(10,2), seq BIGINT\" }\n", extra);
  }

  /** A config with the shop's orders as bronze source, the given silver settings, plus {@code extra} HOCON. */
  private TributaryConfig config(String silver, String extra) {
    TributaryConfig config = TributaryConfig.from(ConfigFactory.parseString("tributary {\n"
        + " catalog { name = " + catalog + ", warehouse = \"" + dir.resolve("wh") + "\" }\n"
        + " kafka.bootstrap-servers = \"127.0.0.1:1\"\n"
        + " checkpoint-location = \"" + dir.resolve("cp") + "\"\n"
        + " bronze.sources.orders { topic = \"shop.orders\", table = bronze.orders }\n"
        + silver
        + "}\n" + extra));
    LakehouseSession.registerCatalog(spark, config.catalog());
    return config;
  }

  private String run(TributaryConfig config, Optional<String> table, Optional<Operation> operation) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    new MaintenanceJob(spark, config).run(table, operation, new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String output = bytes.toString(StandardCharsets.UTF_8);
    System.out.print(output);
    return output;
  }

  private List<String> content(String table) {
    return spark.table(table).toJSON().collectAsList().stream().sorted().toList();
  }

  private Table iceberg(String table) throws Exception {
    Table loaded = Spark3Util.loadIcebergTable(spark, table);
    loaded.refresh();
    return loaded;
  }

  /** Appends order events (version {@code seq} of orders {@code from}..{@code to}) to bronze, one commit. */
  private void appendOrders(long from, long to, int seq, long firstOffset) throws Exception {
    orders(from, to, seq, firstOffset).writeTo(catalog + ".bronze.orders").append();
  }

  /** Order events as bronze rows, in one partition. */
  private org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> orders(long from, long to, int seq,
      long firstOffset) {
    return spark.sql("SELECT 'shop.orders' AS topic, 0 AS partition, " + firstOffset + " + id - " + from + " AS offset,"
        + " timestamp_millis(1764000000000 + id) AS kafka_timestamp, CAST(format_string('o-%05d', id) AS BINARY)"
        + " AS key, CAST(to_json(named_struct('order_id', format_string('o-%05d', id), 'status', element_at("
        + "array('created', 'paid', 'shipped'), " + seq + "), 'amount', format_string('%d.50', id), 'seq', " + seq
        + ")) AS BINARY) AS value, CAST(NULL AS ARRAY<STRUCT<key: STRING, value: BINARY>>) AS headers,"
        + " current_timestamp() AS ingested_at FROM range(" + from + ", " + to + ")").coalesce(1);
  }

  @Test
  void compactionOfHundredsOfSmallFilesAndDeleteFilesKeepsEveryRow() throws Exception {
    TributaryConfig config = config("");
    String table = catalog + ".gold.events";
    spark.sql("CREATE TABLE " + table + " (id BIGINT, kind STRING, amount DOUBLE) USING iceberg"
        + " PARTITIONED BY (kind) TBLPROPERTIES ('format-version' = '2', 'write.delete.mode' = 'merge-on-read',"
        + " 'write.update.mode' = 'merge-on-read', 'write.distribution-mode' = 'none',"
        + " 'write.delete.distribution-mode' = 'none', 'write.update.distribution-mode' = 'none',"
        + " 'write.spark.fanout.enabled' = 'true')");
    for (int round = 0; round < 2; round++) {
      spark.sql("SELECT id, element_at(array('a', 'b', 'c'), CAST(pmod(id, 3) + 1 AS INT)) AS kind, id * 1.5 AS amount"
          + " FROM range(" + round * 10_000 + ", " + (round + 1) * 10_000 + ")").repartition(40)
          .writeTo(table).append();
    }
    spark.sql("DELETE FROM " + table + " WHERE pmod(id, 7) = 0");
    spark.sql("UPDATE " + table + " SET amount = -amount WHERE pmod(id, 11) = 0");
    List<String> before = content(table);
    TableHealth unhealthy = TableHealth.ofIceberg(spark, table, 128L << 20);
    assertThat(unhealthy.dataFiles()).isGreaterThan(200);
    assertThat(unhealthy.deleteFiles()).isGreaterThan(10);

    String output = run(config, Optional.of("gold.events"), Optional.empty());

    TableHealth healthy = TableHealth.ofIceberg(spark, table, 128L << 20);
    assertThat(healthy.dataFiles()).as(output).isEqualTo(3); // one per partition: all of it is below the target
    assertThat(healthy.deleteFiles()).as(output).isZero();
    assertThat(content(table)).isEqualTo(before);
    assertThat(output).contains("== " + table + " (gold, iceberg)", "   before: ", "   rewrite-data-files: ",
        "   after:  ").doesNotContain("rewrite-position-deletes"); // compaction left no delete files
  }

  @Test
  void expirySparesTheSnapshotsASilverStreamHasNotReadAndTheStreamContinues() throws Exception {
    TributaryConfig config = config("tributary.maintenance.bronze { snapshot-retention = 1 ms, retain-last = 1,"
        + " quiet-for = 0s }");
    new BronzeIngestJob(spark, config).createTables();
    // Silver starts after two bronze snapshots and reads two more in a second run, so that where it started (its
    // initial offset) lies before where it resumes.
    for (int batch = 0; batch < 4; batch++) {
      appendOrders(batch * 100, (batch + 1) * 100, 1, batch * 100);
      if (batch % 2 == 1) {
        new SilverMergeJob(spark, config).runUntilCaughtUp();
      }
    }
    // Silver has read four snapshots; six more arrive that it has not read yet.
    for (int batch = 4; batch < 10; batch++) {
      appendOrders(batch * 100 - 400, (batch + 1) * 100 - 400, 2, batch * 100);
    }
    String bronze = catalog + ".bronze.orders";
    OptionalLong position = StreamPositions.position(config.checkpointFor("silver",
        io.tributary.common.config.TableFormat.ICEBERG, config.silver().entities().get("orders").table()),
        spark.sparkContext().hadoopConfiguration());
    assertThat(position).isPresent();
    long resumeAt = position.getAsLong();
    List<Long> unread = new java.util.ArrayList<>();
    for (Snapshot snapshot : iceberg(bronze).snapshots()) {
      if (snapshot.timestampMillis() >= iceberg(bronze).snapshot(resumeAt).timestampMillis()) {
        unread.add(snapshot.snapshotId());
      }
    }
    assertThat(unread).hasSize(7); // where it stands, and the six after

    String output = run(config, Optional.of("bronze.orders"), Optional.of(Operation.EXPIRE_SNAPSHOTS));

    List<Long> kept = new java.util.ArrayList<>();
    iceberg(bronze).snapshots().forEach(snapshot -> kept.add(snapshot.snapshotId()));
    assertThat(kept).as(output).containsExactlyInAnyOrderElementsOf(unread);
    assertThat(output).contains("silver-orders: initial offset moved from snapshot ", "silver-orders resumes at"
        + " snapshot " + resumeAt, "3 snapshots expired", "held back for a stream");

    new SilverMergeJob(spark, config).runUntilCaughtUp();
    assertThat(spark.sql("SELECT count(*), count_if(seq = 2), count_if(status = 'paid') FROM " + catalog
        + ".silver.orders").first().toString()).isEqualTo("[600,600,600]");

    // Compacted and expired again, bronze still gives a new entity all of its rows.
    run(config, Optional.of("bronze.orders"), Optional.empty());
    assertThat(spark.sql("SELECT operation FROM " + bronze + ".snapshots").collectAsList().toString())
        .contains("replace");
    TributaryConfig withNewEntity = config("tributary.silver.entities.orders_copy { source = bronze.orders,"
        + " decoder = json, key = [order_id], sequence = [seq], table = silver.orders_copy,"
        + " schema = \"order_id STRING, status STRING, amount DECIMAL(10,2), seq BIGINT\" }");
    new SilverMergeJob(spark, withNewEntity).runUntilCaughtUp();
    assertThat(spark.sql("SELECT count(*), count_if(seq = 2), count_if(status = 'paid') FROM " + catalog
        + ".silver.orders_copy").first().toString()).isEqualTo("[600,600,600]");
  }

  @Test
  void aDatabasesStreamIsProtectedFromExpiryAndItsTablesAreMaintained() throws Exception {
    TributaryConfig config = config("", "tributary.maintenance.bronze { snapshot-retention = 1 ms, retain-last = 1,"
        + " quiet-for = 0s }\n"
        + "tributary.silver.databases.shop { source = bronze.orders, table = \"silver.db_{table}\","
        + " tables { \"shop.orders\" { key = [order_id], schema = \"order_id STRING, status STRING, seq BIGINT\" } } }");
    new BronzeIngestJob(spark, config).createTables();
    appendChanges(0, 100, 1, 0);
    appendChanges(100, 200, 1, 100);
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    for (int batch = 2; batch < 6; batch++) {
      appendChanges(0, 200, batch, batch * 200);
    }
    String bronze = catalog + ".bronze.orders";
    long resumeAt = StreamPositions.position(io.tributary.common.lakehouse.SilverCheckpoints.database(config,
        config.silver().databases().get("shop")), spark.sparkContext().hadoopConfiguration()).orElseThrow();
    long resumeTime = iceberg(bronze).snapshot(resumeAt).timestampMillis();

    String output = run(config, Optional.empty(), Optional.of(Operation.EXPIRE_SNAPSHOTS));

    for (Snapshot snapshot : iceberg(bronze).snapshots()) {
      assertThat(snapshot.timestampMillis()).as(output).isGreaterThanOrEqualTo(resumeTime);
    }
    assertThat(output).contains("silver-database-shop resumes at snapshot " + resumeAt, "silver.db_orders");
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    assertThat(spark.sql("SELECT count(*), count_if(seq = 5), count_if(status = 'v5') FROM " + catalog
        + ".silver.db_orders").first().toString()).isEqualTo("[200,200,200]");
  }

  /** Appends Debezium PostgreSQL changes (payload only) of orders {@code from}..{@code to} at version {@code seq}. */
  private void appendChanges(long from, long to, int seq, long firstOffset) throws Exception {
    spark.sql("SELECT 'shop.orders' AS topic, 0 AS partition, " + firstOffset + " + id - " + from + " AS offset,"
        + " timestamp_millis(1764000000000 + id) AS kafka_timestamp, CAST(format_string('o-%05d', id) AS BINARY)"
        + " AS key, CAST(to_json(named_struct('op', 'c', 'ts_ms', 1764000000000 + id, 'source', named_struct("
        + "'connector', 'postgresql', 'lsn', " + seq + " * 1000000 + id, 'ts_ms', 1764000000000 + id), 'after',"
        + " named_struct('order_id', format_string('o-%05d', id), 'status', 'v" + seq + "', 'seq', " + seq + ")))"
        + " AS BINARY) AS value, CAST(NULL AS ARRAY<STRUCT<key: STRING, value: BINARY>>) AS headers,"
        + " current_timestamp() AS ingested_at FROM range(" + from + ", " + to + ")").coalesce(1)
        .writeTo(catalog + ".bronze.orders").append();
  }

  @Test
  void orphanRemovalDeletesOnlyOldUnreferencedFiles() throws Exception {
    TributaryConfig config = config("tributary.maintenance.gold.orphan-age = 2 days");
    String table = catalog + ".gold.totals";
    spark.sql("CREATE TABLE " + table + " (id BIGINT) USING iceberg");
    spark.range(0, 1000).repartition(3).writeTo(table).append();
    List<String> before = content(table);
    Path data = dir.resolve("wh/gold/totals/data");
    Path referenced;
    try (Stream<Path> files = Files.list(data)) {
      referenced = files.filter(file -> file.toString().endsWith(".parquet")).findFirst().orElseThrow();
    }
    // A file left by a failed write three days ago, and one a running write made a minute ago.
    Path oldOrphan = Files.copy(referenced, data.resolve("failed-write-old.parquet"));
    Path newOrphan = Files.copy(referenced, data.resolve("running-write-new.parquet"));
    assertThat(oldOrphan.toFile().setLastModified(Instant.now().minus(Duration.ofDays(3)).toEpochMilli())).isTrue();
    // The referenced files are old too: age alone must not make a file an orphan.
    try (Stream<Path> files = Files.list(data)) {
      files.filter(file -> !file.equals(newOrphan)).map(Path::toFile)
          .forEach(file -> file.setLastModified(Instant.now().minus(Duration.ofDays(3)).toEpochMilli()));
    }

    String output = run(config, Optional.of("gold.totals"), Optional.of(Operation.REMOVE_ORPHAN_FILES));

    assertThat(output).contains("remove-orphan-files: 1 orphan files deleted");
    assertThat(oldOrphan).doesNotExist();
    assertThat(newOrphan).exists();
    assertThat(referenced).exists();
    assertThat(content(table)).isEqualTo(before);
    assertThatThrownBy(() -> RemoveOrphanFiles.of(spark, iceberg(table)).olderThan(Duration.ofHours(2)))
        .hasMessage("orphan files must be older than at least 24 hours to be removed, got 2 hours");
  }

  @Test
  void deltaOptimizeAndVacuumKeepTheContent() throws Exception {
    TributaryConfig config = config("tributary.bronze.format = delta");
    String path = dir.resolve("wh/_delta/bronze/orders").toString();
    for (int round = 0; round < 3; round++) {
      spark.sql("SELECT 'shop.orders' AS topic, 0 AS partition, id AS offset, timestamp_millis(1764000000000 + id)"
          + " AS kafka_timestamp, CAST(CAST(id AS STRING) AS BINARY) AS key, CAST(CAST(id * 2 AS STRING) AS BINARY)"
          + " AS value, CAST(NULL AS ARRAY<STRUCT<key: STRING, value: BINARY>>) AS headers,"
          + " current_timestamp() AS ingested_at FROM range(" + round * 1000 + ", " + (round + 1) * 1000 + ")")
          .repartition(20).write().format("delta").mode("append").save(path);
    }
    String table = "delta.`" + path + "`";
    List<String> before = content(table);
    assertThat(TableHealth.ofDelta(spark, table, path, 128L << 20).dataFiles()).isEqualTo(60);

    String output = run(config, Optional.of("bronze.orders"), Optional.empty());

    assertThat(output).contains("   optimize: 60 files -> 1 files", "   vacuum: 0 unreferenced files deleted"
        + " (retention 168 hours)");
    assertThat(TableHealth.ofDelta(spark, table, path, 128L << 20).dataFiles()).isEqualTo(1);
    assertThat(content(table)).isEqualTo(before);
    // VACUUM's listing parallelism was set in a session of its own, not in the caller's.
    assertThat(spark.conf().contains("spark.sql.sources.parallelPartitionDiscovery.parallelism")).isFalse();
    assertThat(new File(path).list()).isNotEmpty();
    assertThatThrownBy(() -> run(config, Optional.of("bronze.orders"), Optional.of(Operation.EXPIRE_SNAPSHOTS)))
        .hasMessageStartingWith("'maintain': --operation expire-snapshots does not apply to delta.`" + path
            + "` (bronze, delta)");
  }

  /**
   * Delta next to a silver stream: VACUUM of bronze keeps the files of the versions the stream has not read (an
   * OPTIMIZE replaced them) however short the retention, and deletes them once it has; on the silver table, tombstones
   * are purged and the deletion vectors that an UPDATE and that purge leave are rewritten away, rows intact.
   */
  @Test
  void deltaVacuumSparesWhatASilverStreamHasNotReadAndDeletionVectorsArePurged() throws Exception {
    TributaryConfig config = config("tributary { bronze.format = delta, silver.format = delta,"
        + " maintenance.bronze.snapshot-retention = 1 ms, maintenance.silver.tombstone-horizon = 1 day }");
    new BronzeIngestJob(spark, config).createTables();
    String bronzePath = dir.resolve("wh/_delta/bronze/orders").toString();
    spark.sql("ALTER TABLE delta.`" + bronzePath + "` SET TBLPROPERTIES"
        + " ('delta.deletedFileRetentionDuration' = 'interval 0 hours')");
    for (int batch = 0; batch < 2; batch++) {
      orders(batch * 100, (batch + 1) * 100, 1, batch * 100).write().format("delta").mode("append").save(bronzePath);
    }
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    // Two versions silver has not read, whose files OPTIMIZE then replaces.
    for (int batch = 2; batch < 4; batch++) {
      orders(batch * 100 - 200, (batch + 1) * 100 - 200, 2, batch * 100).write().format("delta").mode("append")
          .save(bronzePath);
    }
    assertThat(run(config, Optional.of("bronze.orders"), Optional.of(Operation.OPTIMIZE)))
        .contains("optimize: 4 files -> 1 files");
    long resumeAt = StreamPositions.position(config.checkpointFor("silver",
        io.tributary.common.config.TableFormat.DELTA, config.silver().entities().get("orders").table()),
        spark.sparkContext().hadoopConfiguration()).orElseThrow();

    String guarded = run(config, Optional.of("bronze.orders"), Optional.of(Operation.VACUUM));

    assertThat(guarded).contains("silver-orders resumes at version " + resumeAt + " (committed ",
        "vacuum: 0 unreferenced files deleted (retention 2 hours)");
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    String silver = "delta.`" + dir.resolve("wh/_delta/silver/orders") + "`";
    assertThat(spark.sql("SELECT count(*), count_if(seq = 2), count_if(status = 'paid') FROM " + silver).first()
        .toString()).isEqualTo("[200,200,200]");
    // Read now, the replaced files go; Delta's own count goes to the log, not to the console next to the report.
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    String vacuumed = scala.Console.withOut(console, () -> run(config, Optional.of("bronze.orders"),
        Optional.of(Operation.VACUUM)));
    assertThat(vacuumed).doesNotContain("resumes at").contains("vacuum: 4 unreferenced files deleted (retention 0"
        + " hours)");
    assertThat(console.toString(StandardCharsets.UTF_8)).isEmpty();

    // Silver: 50 keys deleted long ago (tombstones past the horizon) and 25 recently.
    spark.sql("UPDATE " + silver + " SET _is_deleted = true, _ts_ms = CASE WHEN order_id < 'o-00050' THEN 0 ELSE"
        + " unix_millis(current_timestamp()) END WHERE order_id < 'o-00075'");
    TableHealth before = TableHealth.ofDelta(spark, silver, dir.resolve("wh/_delta/silver/orders").toString(),
        128L << 20);
    assertThat(before.deleteFiles()).isPositive();
    assertThat(before.describe()).contains(" with deletion vectors");
    List<String> kept = spark.table(silver).where("order_id >= 'o-00050'").toJSON().collectAsList().stream().sorted()
        .toList();

    String output = run(config, Optional.of("silver.orders"), Optional.empty());

    assertThat(output).contains("purge-tombstones: 50 tombstones removed", "purge-deletion-vectors: ",
        "files with deletion vectors -> ", "after:  ", " 0 with deletion vectors");
    assertThat(kept).hasSize(150);
    assertThat(content(silver)).isEqualTo(kept);
    assertThat(spark.sql("SELECT count_if(_is_deleted) FROM " + silver).first().getLong(0)).isEqualTo(25);
  }

  @Test
  void aTableWithMissingFilesIsReportedDamagedAndLeftAloneWhileTheOthersAreMaintained() throws Exception {
    TributaryConfig config = config("");
    String damaged = catalog + ".gold.damaged";
    String intact = catalog + ".gold.intact";
    for (String table : List.of(damaged, intact)) {
      spark.sql("CREATE TABLE " + table + " (id BIGINT) USING iceberg TBLPROPERTIES ('format-version' = '2')");
      for (int round = 0; round < 3; round++) {
        spark.range(round * 100, (round + 1) * 100).repartition(4).writeTo(table).append();
      }
    }
    String gone = spark.sql("SELECT file_path FROM " + damaged + ".files ORDER BY file_path LIMIT 1").first()
        .getString(0);
    Files.delete(Path.of(gone.startsWith("file:") ? java.net.URI.create(gone).getPath() : gone));
    long snapshots = spark.table(damaged + ".snapshots").count();

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    assertThatThrownBy(() -> new MaintenanceJob(spark, config).run(Optional.empty(), Optional.empty(),
        new PrintStream(bytes, true, StandardCharsets.UTF_8)))
        .isInstanceOf(DamagedTablesException.class)
        .hasMessage("1 table with missing files (see the DAMAGED lines above): " + damaged + "; nothing was done to it");
    String output = bytes.toString(StandardCharsets.UTF_8);
    assertThat(output).contains("== " + damaged + " (gold, iceberg)\n   before: DAMAGED: 1 file that the current"
        + " snapshot references is missing (" + gone + ")\n   skipped: nothing is done to a damaged table; restore the"
        + " files, or rebuild it from bronze with 'tributary rebuild --table <namespace.table>'");
    assertThat(spark.table(damaged + ".snapshots").count()).as("nothing committed to it").isEqualTo(snapshots);
    assertThat(output).as("the intact table is compacted").contains("== " + intact + " (gold, iceberg)");
    assertThat(TableHealth.ofIceberg(spark, intact, 128L << 20).dataFiles()).isEqualTo(1);

    ByteArrayOutputStream health = new ByteArrayOutputStream();
    assertThatThrownBy(() -> new MaintenanceJob(spark, config).health(Optional.empty(),
        new PrintStream(health, true, StandardCharsets.UTF_8))).isInstanceOf(DamagedTablesException.class);
    assertThat(health.toString(StandardCharsets.UTF_8)).contains(damaged + " (gold, iceberg): DAMAGED: 1 file");
  }
}
