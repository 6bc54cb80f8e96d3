package io.tributary.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.bronze.BronzeFixture;
import io.tributary.bronze.BronzeIngestJob;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.testing.SharedSpark;
import io.tributary.localstack.GeneratedRecord;
import io.tributary.localstack.GeneratorOptions;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.testing.SharedKafka;
import io.tributary.silver.ShopReference;
import io.tributary.silver.SilverMergeIT;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A silver process killed with SIGKILL in the middle of its streams, and again between a merge's commit and Spark's
 * checkpoint commit, then run to the end: every silver table converges to the reference state, and quarantine holds
 * each bad record once.
 */
@ExtendWith({SharedSpark.class, SharedKafka.class})
class SilverCrashIT {

  @Test
  void silverKilledMidStreamAndInItsCommitWindowConvergesToTheReference(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    List<GeneratedRecord> generated = SilverMergeIT.sendShopStream(fixture, new GeneratorOptions(200, 600, 150,
        0.3, 0.05, 0.02, true, Instant.parse("2026-11-01T00:00:00Z"), Duration.ofHours(6), 23));
    // Small bronze files (silver reads whole files) and small batches every 100 ms, so that each kill lands between
    // (or inside) merges.
    String hocon = fixture.hocon(Map.of("customers", "customers", "orders", "orders"),
        "tributary.bronze.defaults.max-offsets-per-trigger = 100\n" + SilverMergeIT.entities("", 100)
            + "\ntributary.silver.defaults.trigger = \"100 ms\"");
    Path configFile = dir.resolve("lakehouse.conf");
    Files.writeString(configFile, hocon);
    // The catch-up after the kills needs no small batches: what is left, in one per entity.
    Path catchUpConfig = dir.resolve("catch-up.conf");
    Files.writeString(catchUpConfig, fixture.hocon(Map.of("customers", "customers", "orders", "orders"),
        SilverMergeIT.entities("", 100_000)));
    TributaryConfig config = TributaryConfig.load(configFile);
    // Silver starts on empty bronze tables, as in a pipeline started together, so that it follows bronze's many
    // small commits (a stream started later loads what bronze holds in one batch).
    new BronzeIngestJob(spark, config).createTables();
    new io.tributary.silver.SilverMergeJob(spark, config).runUntilCaughtUp();
    new BronzeIngestJob(spark, config).runUntilCaughtUp();
    LakehouseSession.registerCatalog(spark, config.catalog());
    String lake = config.catalog().name();
    Map<Long, List<String>> customers = ShopReference.customers(generated);
    Path log = dir.resolve("silver.log");

    Process silver = ChildProcess.start(log, "silver", "--config", configFile.toString());
    try {
      await().atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofMillis(500))
          .until(() -> !silver.isAlive() || commits(spark, lake + ".silver.customers") >= 2);
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      silver.destroyForcibly();
      throw new AssertionError("silver made " + commits(spark, lake + ".silver.customers")
          + " commits; log:\n" + ChildProcess.tail(log), e);
    }
    assertThat(silver.isAlive()).as("silver still running; log:\n%s", ChildProcess.tail(log)).isTrue();
    ChildProcess.kill(silver);

    // Then in the window between a merge's commit and Spark's checkpoint commit, two batches into the second run
    // (its first may be the first run's last one again).
    Process holding = ChildProcess.startHoldingCommitWindows(log, "silver", "--config", configFile.toString());
    ChildProcess.killInCommitWindow(holding, log, ChildProcess.commitWindows(log) + 2);
    assertThat(ShopReference.liveCustomers(spark, lake + ".silver.customers")).as("killed mid-stream")
        .isNotEqualTo(customers);

    List<String> catchUp = ChildProcess.runToEnd(log, Duration.ofMinutes(8), "silver", "--config",
        catchUpConfig.toString(), "--once");
    assertThat(catchUp).as("the batch killed in its commit window is replayed, and skipped")
        .anyMatch(line -> line.contains("is already committed to") && line.contains("skipping its replay"));

    assertThat(ShopReference.liveCustomers(spark, lake + ".silver.customers")).isEqualTo(customers);
    assertThat(ShopReference.customerHistory(spark, lake + ".silver.customer_history"))
        .isEqualTo(ShopReference.customerHistory(generated));
    assertThat(ShopReference.orders(spark, lake + ".silver.orders")).isEqualTo(ShopReference.orders(generated));
    assertThat(SilverMergeIT.quarantined(spark, lake + ".silver.quarantine")).isEqualTo(Map.of(
        "customers", SilverMergeIT.malformed(generated, GeneratorOptions.CUSTOMERS_TOPIC),
        "customer_history", SilverMergeIT.malformed(generated, GeneratorOptions.CUSTOMERS_TOPIC),
        "orders", SilverMergeIT.malformed(generated, GeneratorOptions.ORDERS_TOPIC)));
  }

  /** The table's snapshots, read from its metadata (no Spark job: the test polls it next to the process). */
  private static long commits(SparkSession spark, String table) {
    try {
      long snapshots = 0;
      for (Snapshot ignored : Spark3Util.loadIcebergTable(spark, table).snapshots()) {
        snapshots++;
      }
      return snapshots;
    } catch (Exception notYetCreated) {
      return 0;
    }
  }
}
