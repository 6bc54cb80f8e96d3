package io.tributary.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.bronze.BronzeFixture;
import io.tributary.bronze.BronzeFixture.Sent;
import io.tributary.bronze.BronzeIngestIT;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.testing.SharedSpark;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.testing.SharedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A bronze process killed with SIGKILL in the middle of its stream, then restarted: no gap, no duplicate. */
@ExtendWith({SharedSpark.class, SharedKafka.class})
class BronzeCrashIT {

  @Test
  void icebergBronzeKilledTwiceMidStreamConvergesToEveryRecordOnce(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    // Small batches so that a kill lands between (or inside) commits: the first after two batches, the second after
    // six.
    killTwiceThenCatchUp(spark, broker, dir, 6_000, new long[] {1_000, 3_000},
        "tributary.bronze.defaults { max-offsets-per-trigger = 500, trigger = \"100 ms\" }");
  }

  @Test
  void deltaBronzeKilledTwiceMidStreamConvergesToEveryRecordOnce(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    // Delta commits take seconds on 2 cores: fewer, larger batches.
    killTwiceThenCatchUp(spark, broker, dir, 6_000, new long[] {1_000, 3_000},
        "tributary.bronze { format = delta, defaults { max-offsets-per-trigger = 1000, trigger = \"100 ms\" } }");
  }

  private void killTwiceThenCatchUp(SparkSession spark, LocalKafkaBroker broker, Path dir, int records,
      long[] killPoints, String settings) throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(2, "pageviews");
    List<Sent> sent = new ArrayList<>(fixture.sendSimple("pageviews", records, 0));
    String hocon = fixture.hocon(Map.of("pageviews", "pageviews"), settings);
    Path configFile = dir.resolve("lakehouse.conf");
    Files.writeString(configFile, hocon);
    // The catch-up after the kills needs no small batches: what is left, in one.
    Path catchUpConfig = dir.resolve("catch-up.conf");
    Files.writeString(catchUpConfig, hocon + "\ntributary.bronze.defaults.max-offsets-per-trigger = 100000\n");
    TributaryConfig config = TributaryConfig.load(configFile);
    LakehouseSession.registerCatalog(spark, config.catalog());
    String table = fixture.tableName(config, "pageviews");
    Path log = dir.resolve("bronze.log");

    for (long killAfter : killPoints) {
      Process bronze = ChildProcess.start(log, "bronze", "--config", configFile.toString());
      await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500))
          .until(() -> !bronze.isAlive() || BronzeFixture.rows(spark, table) >= killAfter);
      assertThat(bronze.isAlive()).as("bronze still running; log:\n%s", ChildProcess.tail(log)).isTrue();
      bronze.destroyForcibly();
      assertThat(bronze.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(bronze.exitValue()).as("killed by SIGKILL").isEqualTo(137);
      assertThat(BronzeFixture.rows(spark, table)).as("killed mid-stream").isLessThan(sent.size());
    }
    sent.addAll(fixture.sendSimple("pageviews", 1_000, records));

    Process catchUp = ChildProcess.start(log, "bronze", "--config", catchUpConfig.toString(), "--once");
    assertThat(catchUp.waitFor(5, TimeUnit.MINUTES)).isTrue();
    assertThat(catchUp.exitValue()).as("log:\n%s", ChildProcess.tail(log)).isZero();

    BronzeIngestIT.assertLandedExactly(sent, fixture.read(spark, config, "pageviews"));
  }
}
