package io.tributary.bronze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tributary.bronze.BronzeFixture.Sent;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.DependencyUnavailableException;
import io.tributary.common.testing.SharedSpark;
import io.tributary.localstack.LocalKafkaBroker;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka down: a broker that never answers fails the run within a minute, naming its address; a broker that stops
 * for over two minutes while continuous bronze runs is ridden through, and nothing is lost or loaded twice. The broker
 * is this test's own (the shared one serves other tests), restarted on the same port.
 */
@ExtendWith(SharedSpark.class)
class BrokerOutageIT {

  @Test
  void brokerThatNeverAnswersFailsTheRunWithinAMinuteNamingItsAddress(SparkSession spark, @TempDir Path dir)
      throws Exception {
    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    TributaryConfig config = new BronzeFixture(null, dir).config("127.0.0.1:" + closed, Map.of("events", "events"),
        "");
    long started = System.nanoTime();
    assertThatThrownBy(() -> new BronzeIngestJob(spark, config).runUntilCaughtUp())
        .isInstanceOf(DependencyUnavailableException.class)
        .hasMessage("Kafka at 127.0.0.1:" + closed + " did not answer within 30 s (tributary.kafka.bootstrap-servers);"
            + " start the broker, or fix the address or the security settings, and run again. Nothing was loaded or"
            + " skipped.");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(60));
  }

  @Test
  void continuousBronzeRidesThroughABrokerOutageOfOverTwoMinutes(SparkSession spark, @TempDir Path dir)
      throws Exception {
    Path home = dir.resolve("kafka");
    LocalKafkaBroker broker = LocalKafkaBroker.start(home, Map.of("log.retention.ms", "-1"));
    try {
      BronzeFixture fixture = new BronzeFixture(broker, dir);
      fixture.createTopics(2, "events");
      // Kafka's client timeouts shortened from 60 s so that the outage fails the running stream (Spark's source
      // retries its offset requests three times) well within it, and the restarts are what rides through.
      TributaryConfig config = fixture.config(Map.of("events", "events"),
          "tributary.bronze.defaults { max-offsets-per-trigger = 300, trigger = \"500 ms\" }\n"
              + "tributary.kafka.options { \"default.api.timeout.ms\" = 10000, \"request.timeout.ms\" = 5000 }");
      String table = fixture.tableName(config, "events");
      List<Sent> sent = new ArrayList<>(fixture.sendSimple("events", 3_000, 0));
      BronzeFixture.Running bronze = BronzeFixture.runInBackground(spark, config);
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).until(() -> BronzeFixture.rows(spark, table) >= 600);
      java.util.UUID runBefore = spark.streams().active()[0].runId();

      broker.stop();
      // The outage itself is the input: long enough for Kafka's client timeouts to fail the running batch.
      Thread.sleep(Duration.ofSeconds(125).toMillis());
      broker = LocalKafkaBroker.start(home, Map.of("log.retention.ms", "-1"));
      assertThat(broker.bootstrapServers()).as("same address after the restart").isEqualTo(fixture.broker.bootstrapServers());
      sent.addAll(fixture.sendSimple("events", 1_000, 3_000));

      await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(1))
          .until(() -> BronzeFixture.rows(spark, table) >= sent.size() || !bronze.isAlive());
      assertThat(bronze.isAlive()).as("bronze rode through the outage").isTrue();
      assertThat(spark.streams().active()).extracting(query -> query.runId()).as("the stream was restarted")
          .doesNotContain(runBefore);
      bronze.stop();
      BronzeIngestIT.assertLandedExactly(sent, fixture.read(spark, config, "events"));
    } finally {
      broker.stop();
    }
  }
}
