package io.tributary.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.bronze.BronzeFixture;
import io.tributary.bronze.BronzeFixture.Sent;
import io.tributary.bronze.BronzeIngestIT;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.testing.SharedSpark;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.SparkDistribution;
import io.tributary.localstack.testing.SharedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spark-submit jar on its own: its classpath is the shaded jar plus Spark's jars only (what a Spark distribution
 * has), as on a cluster. Proves the jar carries the Kafka source, Iceberg, Delta and config, and that their service
 * files are merged so that format("kafka") and "iceberg" resolve.
 */
@ExtendWith({SharedSpark.class, SharedKafka.class})
class ShadedJarIT {

  @Test
  void theShadedJarRunsBronzeWithOnlySparkBesideIt(SparkSession spark, LocalKafkaBroker broker, @TempDir Path dir)
      throws Exception {
    Path target = Path.of("target");
    Path jar = SparkDistribution.applicationJar(target);
    String sparkOnly = SparkDistribution.classpath(target);

    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(2, "submitted");
    List<Sent> sent = fixture.sendSimple("submitted", 500, 0);
    Path configFile = dir.resolve("lakehouse.conf");
    Files.writeString(configFile, fixture.hocon(Map.of("submitted", "submitted"), ""));
    Path log = dir.resolve("submit.log");

    Process bronze = ChildProcess.start(jar.toAbsolutePath() + ":" + sparkOnly, log,
        "bronze", "--config", configFile.toString(), "--once");
    assertThat(bronze.waitFor(5, TimeUnit.MINUTES)).isTrue();
    assertThat(bronze.exitValue()).as(Files.readString(log)).isZero();

    TributaryConfig config = TributaryConfig.load(configFile);
    BronzeIngestIT.assertLandedExactly(sent, fixture.read(spark, config, "submitted"));
  }
}
