package io.tributary.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.bronze.BronzeFixture;
import io.tributary.bronze.BronzeIngestJob;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.DependencyUnavailableException;
import io.tributary.common.lakehouse.StorageFull;
import io.tributary.common.testing.SharedSpark;
import io.tributary.localstack.GeneratedRecord;
import io.tributary.localstack.GeneratorOptions;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.ShopEventGenerator;
import io.tributary.localstack.testing.SharedKafka;
import io.tributary.silver.ShopReference;
import io.tributary.silver.SilverMergeIT;
import io.tributary.silver.SilverMergeJob;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The warehouse's file system full during a bronze and a silver batch, a gold run and a compaction: each fails with
 * one line naming the folders and their free space, commits nothing, and once space is freed the next runs load every
 * record once, silver equals the reference, gold equals its query over silver and compaction keeps every row. The
 * warehouse is a small tmpfs mounted by the test (root is needed, as CI has it; elsewhere the test is skipped and
 * says why). One mount and one lakehouse serve every layer.
 */
@ExtendWith({SharedSpark.class, SharedKafka.class})
class DiskFullIT {

  @Test
  void aFullWarehouseFailsEachLayerInOneLineAndTheNextRunsLoseNothing(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    Path warehouse = Files.createDirectories(dir.resolve("warehouse"));
    mount(warehouse);
    try {
      BronzeFixture fixture = new BronzeFixture(broker, dir);
      fixture.createTopics(2, "customers", "orders");
      // Orders only (one entity, one stream each way): what is tested is the failure and the recovery, not merging.
      // Their hour lies inside one day, whatever the time of the run: bronze is partitioned by the day of the Kafka
      // timestamp and compaction needs five small files in a partition, so an hour across midnight would split the
      // runs' eight files into two partitions with nothing to rewrite, and the full disk would never be met.
      Instant start = LocalDate.now(ZoneOffset.UTC).minusDays(1).atTime(10, 0).toInstant(ZoneOffset.UTC);
      List<GeneratedRecord> generated = new ArrayList<>();
      ShopEventGenerator.records(new GeneratorOptions(300, 0, 50, 0.3, 0.05, 0.02, false,
          start, Duration.ofHours(1), 31)).forEachRemaining(record -> {
            if (record.topic().equals(GeneratorOptions.ORDERS_TOPIC)) {
              generated.add(record);
            }
          });
      Path models = Files.createDirectories(dir.resolve("models"));
      Files.writeString(models.resolve("orders_by_status.sql"), "-- materialized: table\n"
          + "SELECT status, count(*) AS orders FROM {{ source('silver.orders') }} WHERE NOT _is_deleted"
          + " GROUP BY status\n");
      Path configFile = dir.resolve("lakehouse.conf");
      Files.writeString(configFile, fixture.hocon(Map.of("orders", "orders"), "tributary.silver.entities.orders {"
          + " source = bronze.orders, decoder = json, key = [order_id], sequence = [seq], event-time-field ="
          + " event_time, table = silver.orders, schema = \"" + SilverMergeIT.ORDER_SCHEMA + "\" }\n"
          + "tributary.gold { models = \"" + models + "\", namespace = gold }\n"
          // Compacted at once, not after bronze's partitions have been quiet for an hour.
          + "tributary.maintenance.bronze.quiet-for = 0s"));
      TributaryConfig config = TributaryConfig.load(configFile);
      String lake = config.catalog().name();
      int half = generated.size() / 2;
      int threeQuarters = generated.size() * 3 / 4;
      SilverMergeIT.send(fixture, generated.subList(0, half));
      new BronzeIngestJob(spark, config).runUntilCaughtUp();
      new SilverMergeJob(spark, config).runUntilCaughtUp();

      // Silver's next batch meets a full disk: bronze has the rest, silver cannot write it.
      SilverMergeIT.send(fixture, generated.subList(half, threeQuarters));
      new BronzeIngestJob(spark, config).runUntilCaughtUp();
      List<String> silverTables = List.of(lake + ".silver.orders", lake + ".silver.quarantine");
      List<Long> before = currentSnapshots(spark, silverTables);
      Path ballast = fill(warehouse);
      assertFullDiskMessage(() -> new SilverMergeJob(spark, config).runUntilCaughtUp(), "silver", warehouse, dir);
      assertThat(currentSnapshots(spark, silverTables)).as("nothing committed").isEqualTo(before);

      // So does bronze's: the last quarter cannot be landed yet.
      long bronzeRows = rows(spark, lake + ".bronze.orders");
      SilverMergeIT.send(fixture, generated.subList(threeQuarters, generated.size()));
      assertFullDiskMessage(() -> new BronzeIngestJob(spark, config).runUntilCaughtUp(), "bronze-orders", warehouse, dir);
      assertThat(rows(spark, lake + ".bronze.orders")).as("nothing committed").isEqualTo(bronzeRows);

      Files.delete(ballast);
      new BronzeIngestJob(spark, config).runUntilCaughtUp();
      new SilverMergeJob(spark, config).runUntilCaughtUp();
      assertThat(spark.sql("SELECT count(*), count(DISTINCT topic, partition, offset) FROM " + lake
          + ".bronze.orders").first().toString()).isEqualTo("[" + generated.size() + "," + generated.size() + "]");
      assertThat(ShopReference.orders(spark, lake + ".silver.orders")).isEqualTo(ShopReference.orders(generated));
      assertThat(SilverMergeIT.quarantined(spark, lake + ".silver.quarantine").get("orders"))
          .isEqualTo(SilverMergeIT.malformed(generated, GeneratorOptions.ORDERS_TOPIC));

      // Gold: the model's table is never half made.
      String date = LocalDate.now(ZoneOffset.UTC).toString();
      ballast = fill(warehouse);
      assertFullDiskLine(CommandRun.of("gold", "--config", configFile.toString(), "--date", date), "gold", warehouse,
          dir, StorageFull.GOLD_RUN);
      assertThat(spark.catalog().tableExists(lake + ".gold.orders_by_status")).as("nothing committed").isFalse();
      Files.delete(ballast);
      assertThat(CommandRun.of("gold", "--config", configFile.toString(), "--date", date).code()).isZero();
      assertThat(spark.sql("SELECT status, orders FROM " + lake + ".gold.orders_by_status ORDER BY status")
          .collectAsList().toString()).isEqualTo(spark.sql("SELECT status, count(*) FROM " + lake + ".silver.orders"
              + " WHERE NOT _is_deleted GROUP BY status ORDER BY status").collectAsList().toString());

      // Maintenance: bronze's small files (one run per quarter) compacted on a full disk, then with space.
      List<Long> bronzeBefore = currentSnapshots(spark, List.of(lake + ".bronze.orders"));
      ballast = fill(warehouse);
      assertFullDiskLine(CommandRun.of("maintain", "--config", configFile.toString(), "--table", "bronze.orders",
          "--operation", "rewrite-data-files"), "maintain", warehouse, dir, StorageFull.MAINTENANCE);
      assertThat(currentSnapshots(spark, List.of(lake + ".bronze.orders"))).as("nothing committed")
          .isEqualTo(bronzeBefore);
      Files.delete(ballast);
      CommandRun compacted = CommandRun.of("maintain", "--config", configFile.toString(), "--table", "bronze.orders", "--operation",
          "rewrite-data-files");
      assertThat(compacted.code()).as(compacted.out()).isZero();
      assertThat(currentSnapshots(spark, List.of(lake + ".bronze.orders"))).as("compacted")
          .isNotEqualTo(bronzeBefore);
      assertThat(spark.sql("SELECT count(*), count(DISTINCT topic, partition, offset) FROM " + lake
          + ".bronze.orders").first().toString()).isEqualTo("[" + generated.size() + "," + generated.size() + "]");
    } finally {
      run("umount", "-l", warehouse.toString());
    }
  }

  private static void assertFullDiskMessage(org.assertj.core.api.ThrowableAssert.ThrowingCallable job,
      String stream, Path warehouse, Path dir) {
    assertThatThrownBy(job)
        .isInstanceOf(DependencyUnavailableException.class)
        .hasMessageStartingWith(stream)
        .hasMessageContaining(": no space left on device (tributary.catalog.warehouse " + warehouse + ": ")
        .hasMessageContaining(" MiB free of 16 MiB; tributary.checkpoint-location " + dir.resolve("checkpoints") + ": ")
        .hasMessageEndingWith("). The batch was not committed and nothing was skipped: free space and run again,"
            + " and the batch is written then.")
        .satisfies(failure -> assertThat(failure.getMessage()).doesNotContain("\n"));
  }

  /** Exit 1 and one line on stderr: the command, the folders with their free space, what was left and what to do. */
  private static void assertFullDiskLine(CommandRun run, String job, Path warehouse, Path dir, String consequence) {
    assertThat(run.code()).as("stdout:\n%s\nstderr:\n%s", run.out(), run.err()).isEqualTo(1);
    assertThat(run.err().strip()).as("one line").doesNotContain("\n")
        .startsWith("tributary " + job + ": " + job + ": no space left on device (tributary.catalog.warehouse "
            + warehouse + ": ")
        .contains(" MiB free of 16 MiB; tributary.checkpoint-location " + dir.resolve("checkpoints") + ": ")
        .endsWith("). " + consequence);
  }

  private static long rows(SparkSession spark, String table) {
    return spark.table(table).count();
  }

  private static List<Long> currentSnapshots(SparkSession spark, List<String> tables) throws Exception {
    List<Long> snapshots = new ArrayList<>();
    for (String table : tables) {
      org.apache.iceberg.Snapshot current = org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark, table)
          .currentSnapshot();
      snapshots.add(current == null ? -1 : current.snapshotId());
    }
    return snapshots;
  }

  private static void mount(Path folder) throws Exception {
    Run mounted = run("mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", folder.toString());
    Assumptions.assumeTrue(mounted.exit() == 0, "cannot mount a tmpfs here (" + mounted.output().strip()
        + "): a full disk is not tested on this machine");
  }

  /** Writes a file until the file system has no space left; returns it. */
  private static Path fill(Path folder) throws IOException {
    Path ballast = folder.resolve("ballast");
    byte[] chunk = new byte[64 * 1024];
    try (OutputStream out = Files.newOutputStream(ballast)) {
      while (true) {
        out.write(chunk);
      }
    } catch (IOException full) {
      assertThat(full.getMessage()).contains("No space left on device");
    }
    return ballast;
  }

  private record Run(int exit, String output) {}

  private static Run run(String... command) throws Exception {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return new Run(process.waitFor(), output);
    } catch (IOException notThere) {
      return new Run(-1, notThere.getMessage());
    }
  }
}
