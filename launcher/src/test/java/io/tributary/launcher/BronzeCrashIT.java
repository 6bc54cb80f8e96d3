package io.tributary.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.bronze.BronzeFixture;
import io.tributary.bronze.BronzeFixture.Sent;
import io.tributary.bronze.BronzeIngestIT;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.PlannedBatchHold;
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

/**
 * A bronze process killed with SIGKILL in the middle of its stream, and again between a batch's table commit and
 * Spark's checkpoint commit, then restarted; two bronze processes racing for one batch on one checkpoint: no gap, no
 * duplicate, and the replayed batch writes no file.
 */
@ExtendWith({SharedSpark.class, SharedKafka.class})
class BronzeCrashIT {

  @Test
  void icebergBronzeKilledMidStreamAndInItsCommitWindowConvergesToEveryRecordOnce(SparkSession spark,
      LocalKafkaBroker broker, @TempDir Path dir) throws Exception {
    killTwiceThenCatchUp(spark, broker, dir,
        "tributary.bronze.defaults { max-offsets-per-trigger = 500, trigger = \"100 ms\" }");
  }

  @Test
  void deltaBronzeKilledMidStreamAndInItsCommitWindowConvergesToEveryRecordOnce(SparkSession spark,
      LocalKafkaBroker broker, @TempDir Path dir) throws Exception {
    // The batches of the Iceberg case: with batches of 1,000, a Delta bronze that commits in a fraction of a second
    // can land all 6,000 records before the second kill, and the test would prove nothing.
    killTwiceThenCatchUp(spark, broker, dir,
        "tributary.bronze { format = delta, defaults { max-offsets-per-trigger = 500, trigger = \"100 ms\" } }");
  }

  @Test
  void icebergBronzeStartedTwiceOnOneCheckpointLandsEveryRecordOnce(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    twoProcessesRaceForOneBatch(spark, broker, dir, "tributary.bronze.defaults.max-offsets-per-trigger = 400");
  }

  @Test
  void deltaBronzeStartedTwiceOnOneCheckpointLandsEveryRecordOnce(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    twoProcessesRaceForOneBatch(spark, broker, dir,
        "tributary.bronze { format = delta, defaults.max-offsets-per-trigger = 2000 }");
  }

  /**
   * A job started twice by mistake (a scheduler's retry while the first run still runs): the first plans a batch and
   * is held before its table commit; the second, started on the same checkpoint, replays that batch and commits it
   * first, then runs to the end; the first then commits the batch it planned on a table that has changed. Held, not
   * timed, so the race is the same on every run.
   */
  private void twoProcessesRaceForOneBatch(SparkSession spark, LocalKafkaBroker broker, Path dir, String settings)
      throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(2, "clicks");
    List<Sent> sent = new ArrayList<>(fixture.sendSimple("clicks", 4_000, 0));
    Path configFile = dir.resolve("lakehouse.conf");
    Files.writeString(configFile, fixture.hocon(Map.of("clicks", "clicks"), settings));
    TributaryConfig config = TributaryConfig.load(configFile);
    Path firstLog = dir.resolve("first.log");
    Path release = Files.createFile(dir.resolve("hold"));
    Process first = ChildProcess.startHoldingBeforeTableCommit(firstLog, release, "bronze", "--config",
        configFile.toString(), "--once");
    await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200))
        .until(() -> !first.isAlive() || ChildProcess.count(firstLog, PlannedBatchHold.MARKER) > 0);
    assertThat(first.isAlive()).as("first run holds its batch; log:\n%s", ChildProcess.tail(firstLog)).isTrue();

    ChildProcess.runToEnd(dir.resolve("second.log"), Duration.ofMinutes(5), "bronze", "--config",
        configFile.toString(), "--once");
    Files.delete(release);
    assertThat(first.waitFor(5, TimeUnit.MINUTES)).isTrue();
    assertThat(Files.readAllLines(firstLog))
        .as("the first run saw the second one's commit and wrote nothing of its own plan")
        .anyMatch(line -> line.contains("another writer committed to"));

    // Whatever the first run left (Spark refuses its checkpoint commit of a batch the second wrote), a later run
    // loads; what neither may do is lose or double a record.
    sent.addAll(fixture.sendSimple("clicks", 500, 4_000));
    new io.tributary.bronze.BronzeIngestJob(spark, config).runUntilCaughtUp();
    BronzeIngestIT.assertLandedExactly(sent, fixture.read(spark, config, "clicks"));
  }

  /**
   * Small batches, so that the first kill (once 1,000 rows are in) lands between or inside commits; the second lands
   * in the window between a batch's table commit and Spark's checkpoint commit (held open for it), which the catch-up
   * must replay without writing anything.
   */
  private void killTwiceThenCatchUp(SparkSession spark, LocalKafkaBroker broker, Path dir, String settings)
      throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(2, "pageviews");
    int records = 6_000;
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

    Process bronze = ChildProcess.start(log, "bronze", "--config", configFile.toString());
    await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500))
        .until(() -> !bronze.isAlive() || BronzeFixture.rows(spark, table) >= 1_000);
    assertThat(bronze.isAlive()).as("bronze still running; log:\n%s", ChildProcess.tail(log)).isTrue();
    ChildProcess.kill(bronze);

    // The second run's first batch may be the first run's last one again; the kill lands after its second commit.
    Process holding = ChildProcess.startHoldingCommitWindows(log, "bronze", "--config", configFile.toString());
    ChildProcess.killInCommitWindow(holding, log, ChildProcess.commitWindows(log) + 2);
    long inTable = BronzeFixture.rows(spark, table);
    assertThat(inTable).as("killed mid-stream (all records in the table: the kills came too late); log:\n%s",
        ChildProcess.tail(log)).isLessThan(sent.size());
    sent.addAll(fixture.sendSimple("pageviews", 1_000, records));

    List<String> catchUp = ChildProcess.runToEnd(log, Duration.ofMinutes(5), "bronze", "--config",
        catchUpConfig.toString(), "--once");
    assertThat(catchUp).as("the batch killed in its commit window is replayed, and writes nothing")
        .anyMatch(line -> line.contains("holds its offsets already (a replay); nothing written"));

    BronzeIngestIT.assertLandedExactly(sent, fixture.read(spark, config, "pageviews"));
  }
}
