package io.tributary.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.bronze.BronzeFixture;
import io.tributary.bronze.BronzeIngestJob;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.testing.SharedSpark;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.testing.SharedKafka;
import io.tributary.silver.SilverMergeJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tributary status}: caught-up streams pass; records waiting in Kafka or in bronze show as behind, and a
 * stream behind without a recent commit fails the check (what the Airflow streams DAG alerts on).
 */
@ExtendWith({SharedSpark.class, SharedKafka.class})
class StatusIT {

  @Test
  void reportsWhereEachStreamStandsAndFailsWhenOneIsStalled(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(2, "events");
    fixture.sendSimple("events", 40, 0);
    // The records are plain text ("value-7"), so silver quarantines every one of them; what is tested here is where
    // each stream stands, so the entity lets that through instead of failing the batch.
    String hocon = fixture.hocon(Map.of("events", "events"), "tributary.silver.entities.events { source ="
        + " bronze.events, decoder = json, key = [id], sequence = [], table = silver.events, schema = \"id STRING\","
        + " max-quarantine-ratio = 1 }");
    Path file = dir.resolve("lakehouse.conf");
    Files.writeString(file, hocon);
    TributaryConfig config = TributaryConfig.load(file);
    new BronzeIngestJob(spark, config).runUntilCaughtUp();
    new SilverMergeJob(spark, config).runUntilCaughtUp();

    CommandRun caughtUp = status(file, "1h");
    assertThat(caughtUp.code()).as(caughtUp.out()).isEqualTo(Tributary.OK);
    assertThat(caughtUp.out()).containsPattern("bronze-events +batch \\d+ committed .*; behind: 0 records in Kafka"
        + "  caught up").containsPattern("silver-events +batch -?\\d+ committed .*; behind: 0 records in 0 bronze"
        + " snapshots  caught up|silver-events +no batch committed yet; behind: 0 records in 0 bronze snapshots"
        + "  caught up");

    // 25 records arrive in Kafka; bronze has not run: it is behind, and with no commit in the last 0 s, stalled.
    fixture.sendSimple("events", 25, 40);
    CommandRun behind = status(file, "1h");
    assertThat(behind.code()).as(behind.out()).isEqualTo(Tributary.OK);
    assertThat(behind.out()).contains("behind: 25 records in Kafka  catching up");
    CommandRun stalled = status(file, "0s");
    assertThat(stalled.code()).as(stalled.out()).isEqualTo(Tributary.FAILED);
    assertThat(stalled.out()).contains("behind: 25 records in Kafka  STALLED", "1 of 2 streams are stalled");

    // Bronze loads them; now silver is the one behind.
    new BronzeIngestJob(spark, config).runUntilCaughtUp();
    CommandRun silverBehind = status(file, "0s");
    assertThat(silverBehind.code()).isEqualTo(Tributary.FAILED);
    assertThat(silverBehind.out()).contains("behind: 25 records in 1 bronze snapshot  STALLED");
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    assertThat(status(file, "0s").code()).isEqualTo(Tributary.OK);

    // Kafka does not answer: neither caught up nor behind, a code of its own and one line naming the address.
    Path down = dir.resolve("kafka-down.conf");
    Files.writeString(down, hocon + "\ntributary.kafka.bootstrap-servers = \"127.0.0.1:1\"\n");
    CommandRun unreachable = status(down, "1h");
    assertThat(unreachable.code()).as(unreachable.err()).isEqualTo(Tributary.UNREACHABLE);
    assertThat(unreachable.err().lines()).singleElement().asString()
        .startsWith("tributary status: Kafka at 127.0.0.1:1 did not answer within 30 s");

    // The warehouse's storage does not answer (an HDFS name node that is down): the same code, one line naming it.
    int closed;
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    Path storageDown = dir.resolve("storage-down.conf");
    // A catalog name of its own: a session keeps the settings of a catalog it has used.
    Files.writeString(storageDown, hocon + "\ntributary.catalog.name = down" + closed
        + "\ntributary.catalog.warehouse = \"hdfs://127.0.0.1:" + closed
        + "/warehouse\"\ntributary.catalog.properties { \"hadoop.ipc.client.connect.max.retries\" = \"0\" }\n");
    CommandRun storageUnreachable = status(storageDown, "1h");
    assertThat(storageUnreachable.code()).as(storageUnreachable.err()).isEqualTo(Tributary.UNREACHABLE);
    assertThat(storageUnreachable.err().lines()).singleElement().asString()
        .startsWith("tributary status: the lakehouse's storage or catalog did not answer (tributary.catalog: hadoop at"
            + " hdfs://127.0.0.1:" + closed + "/warehouse; tributary.checkpoint-location ")
        .contains("ConnectException: ");
  }

  private static CommandRun status(Path config, String maxIdle) {
    return CommandRun.of("status", "--config", config.toString(), "--max-idle", maxIdle);
  }
}
