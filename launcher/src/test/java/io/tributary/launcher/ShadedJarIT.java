package io.tributary.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.bronze.BronzeFixture;
import io.tributary.bronze.BronzeFixture.Sent;
import io.tributary.bronze.BronzeIngestIT;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.testing.SharedSpark;
import io.tributary.localstack.LocalKafkaBroker;
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

  /** Jars the shade plugin puts into the jar; everything else on the local classpath is what Spark ships. */
  private static final List<String> SHADED = List.of("/io/tributary/", "/tributary-", "/org/apache/iceberg/",
      "/io/delta/", "/io/unitycatalog/", "/spark-sql-kafka-0-10_", "/spark-token-provider-kafka-0-10_",
      "/kafka-clients/", "/commons-pool2/", "/jackson-datatype-jdk8/", "/com/typesafe/config/");

  static String sparkDistributionClasspath(Path target) throws Exception {
    String runtime = Files.readString(target.resolve("local-runtime.classpath")).trim();
    String provided = Files.readString(target.resolve("local-provided.classpath")).trim();
    List<String> entries = new java.util.ArrayList<>(List.of(provided.split(":")));
    for (String entry : runtime.split(":")) {
      if (SHADED.stream().noneMatch(entry::contains)) {
        entries.add(entry);
      }
    }
    return String.join(":", entries);
  }

  @Test
  void theShadedJarRunsBronzeWithOnlySparkBesideIt(SparkSession spark, LocalKafkaBroker broker, @TempDir Path dir)
      throws Exception {
    Path target = Path.of("target");
    Path jar = target.resolve("tributary-" + System.getProperty("project.version", "0.1.0-SNAPSHOT") + ".jar");
    assertThat(jar).exists();
    String sparkOnly = sparkDistributionClasspath(target);

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
