package io.tributary.silver;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.bronze.BronzeFixture;
import io.tributary.bronze.BronzeIngestJob;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.testing.CheckpointLogFiles;
import io.tributary.common.testing.SharedSpark;
import io.tributary.localstack.GeneratedRecord;
import io.tributary.localstack.GeneratorOptions;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.ShopEventGenerator;
import io.tributary.localstack.testing.SharedKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Silver checkpoints one batch behind their tables (restored from a backup, the last batch files lost): Spark plans
 * that batch again over a longer bronze range, and the stream applies it instead of skipping it by its number.
 */
@ExtendWith({SharedSpark.class, SharedKafka.class})
class SilverCheckpointBehindIT {

  @Test
  void batchPlannedAgainOverALongerRangeIsAppliedNotSkipped(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(2, "customers", "orders");
    List<GeneratedRecord> generated = new ArrayList<>();
    ShopEventGenerator.records(new GeneratorOptions(200, 400, 150, 0.3, 0.05, 0.02, true,
        Instant.parse("2026-11-01T00:00:00Z"), Duration.ofHours(6), 23)).forEachRemaining(generated::add);
    TributaryConfig config = fixture.config(Map.of("customers", "customers", "orders", "orders"),
        "tributary.bronze.defaults.max-offsets-per-trigger = 150\n" + SilverMergeIT.entities("", 200));
    int half = generated.size() / 2;
    SilverMergeIT.send(fixture, generated.subList(0, half));
    new BronzeIngestJob(spark, config).createTables();
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    new BronzeIngestJob(spark, config).runUntilCaughtUp();
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    for (SilverEntity entity : config.silver().entityList()) {
      Path checkpoint = Path.of(config.checkpointFor("silver", TableFormat.ICEBERG, entity.table()));
      long last = CheckpointLogFiles.lastBatch(checkpoint.resolve("commits"));
      assertThat(last).as("%s ran several batches", entity.name()).isPositive();
      CheckpointLogFiles.delete(checkpoint.resolve("offsets/" + last));
      CheckpointLogFiles.delete(checkpoint.resolve("commits/" + last));
    }
    SilverMergeIT.send(fixture, generated.subList(half, generated.size()));
    new BronzeIngestJob(spark, config).runUntilCaughtUp();

    new SilverMergeJob(spark, config).runUntilCaughtUp();

    String lake = config.catalog().name();
    assertThat(ShopReference.liveCustomers(spark, lake + ".silver.customers"))
        .isEqualTo(ShopReference.customers(generated));
    assertThat(ShopReference.customerHistory(spark, lake + ".silver.customer_history"))
        .isEqualTo(ShopReference.customerHistory(generated));
    assertThat(ShopReference.orders(spark, lake + ".silver.orders")).isEqualTo(ShopReference.orders(generated));
    assertThat(SilverMergeIT.quarantined(spark, lake + ".silver.quarantine")).as("each malformed record once")
        .isEqualTo(Map.of(
            "customers", SilverMergeIT.malformed(generated, GeneratorOptions.CUSTOMERS_TOPIC),
            "customer_history", SilverMergeIT.malformed(generated, GeneratorOptions.CUSTOMERS_TOPIC),
            "orders", SilverMergeIT.malformed(generated, GeneratorOptions.ORDERS_TOPIC)));
  }



}
