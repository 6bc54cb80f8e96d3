package io.tributary.bronze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.bronze.BronzeReingest.Bounds;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.testing.SharedSpark;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.testing.SharedKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Re-ingesting a range: records bronze holds are not added again, records it lost come back byte for byte, and
 * what the running stream has not committed yet is left to it.
 */
@ExtendWith({SharedSpark.class, SharedKafka.class})
class ReingestIT {

  @Test
  void addsOnlyWhatBronzeDoesNotHold(SparkSession spark, LocalKafkaBroker broker, @TempDir Path dir)
      throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(2, "events");
    String topic = fixture.topic("events");
    List<BronzeFixture.Sent> sent = fixture.sendSimple("events", 120, 0);
    TributaryConfig config = fixture.config(Map.of("events", "events"), "");
    new BronzeIngestJob(spark, config).runUntilCaughtUp();
    String bronze = fixture.tableName(config, "events");
    List<String> loaded = content(spark, bronze);
    assertThat(loaded).hasSize(120);
    long snapshots = spark.table(bronze + ".snapshots").count();

    // An already-loaded range, by offsets and by time: nothing changes, not even a new snapshot.
    BronzeReingest.Result again = reingest(spark, config, new Bounds.Offsets("{\"" + topic + "\":{\"0\":0,\"1\":0}}",
        Optional.empty()), false);
    assertThat(again.read()).isEqualTo(120);
    assertThat(again.added()).isZero();
    BronzeReingest.Result byTime = reingest(spark, config, new Bounds.Times(Instant.now().minusSeconds(3600),
        Instant.now().plusSeconds(60)), false);
    assertThat(byTime.read()).isEqualTo(120);
    assertThat(byTime.added()).isZero();
    assertThat(content(spark, bronze)).isEqualTo(loaded);
    assertThat(spark.table(bronze + ".snapshots").count()).isEqualTo(snapshots);

    // Rows removed from bronze by mistake come back as they were, once.
    BronzeFixture.Sent first = sent.get(0);
    spark.sql("DELETE FROM " + bronze + " WHERE `partition` = " + first.partition() + " AND `offset` < 10");
    assertThat(spark.table(bronze).count()).isEqualTo(110);
    BronzeReingest.Result restored = reingest(spark, config, new Bounds.Offsets("{\"" + topic + "\":{\""
        + first.partition() + "\":0}}", Optional.of("{\"" + topic + "\":{\"" + first.partition() + "\":40}}")), false);
    assertThat(restored.read()).isEqualTo(40);
    assertThat(restored.added()).isEqualTo(10);
    assertThat(content(spark, bronze)).isEqualTo(loaded);
    assertThat(spark.sql("SELECT summary['tributary.bronze.reingest'] FROM " + bronze + ".snapshots"
        + " WHERE summary['tributary.bronze.reingest'] IS NOT NULL").first().getString(0))
        .isEqualTo(topic + "-" + first.partition() + ":0-39");

    // Records the stream has not committed yet are left to it: no duplicate when it runs.
    fixture.sendSimple("events", 30, 120);
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    BronzeReingest.Result ahead = new BronzeReingest(spark, config).run("events", new Bounds.Offsets("{\"" + topic
        + "\":{\"0\":0,\"1\":0}}", Optional.empty()), new PrintStream(printed, true, StandardCharsets.UTF_8));
    assertThat(ahead.added()).isZero();
    assertThat(printed.toString(StandardCharsets.UTF_8)).contains("are left to the bronze stream");
    new BronzeIngestJob(spark, config).runUntilCaughtUp();
    assertThat(spark.sql("SELECT count(*), count(DISTINCT topic, `partition`, `offset`) FROM " + bronze).first()
        .toString()).isEqualTo("[150,150]");

    assertThatThrownBy(() -> reingest(spark, config, new Bounds.Offsets("{\"other\":{\"0\":0}}", Optional.empty()),
        false)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("other-0 is not a partition");
  }

  private static BronzeReingest.Result reingest(SparkSession spark, TributaryConfig config, Bounds bounds,
      boolean acceptLoss) throws Exception {
    BronzeReingest reingest = new BronzeReingest(spark, config);
    return (acceptLoss ? reingest.acceptingDataLoss() : reingest).run("events", bounds, System.out);
  }

  /** Every row but its ingest time, sorted. */
  static List<String> content(SparkSession spark, String table) {
    return spark.table(table).drop("ingested_at").toJSON().collectAsList().stream().sorted().toList();
  }
}
