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
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spark-submit jar on its own: its classpath is the shaded jar plus Spark's jars only (what a Spark distribution
 * has), as on a cluster. Proves the jar carries the Kafka source, Iceberg, Delta and config, and that their service
 * files are merged so that format("kafka") and "iceberg" resolve; and that it holds no development code.
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

  @Test
  void holdsTheProductionCodeOnly() throws Exception {
    Path jar = SparkDistribution.applicationJar(Path.of("target"));
    List<String> ours;
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      ours = zip.stream().map(ZipEntry::getName)
          .filter(name -> name.startsWith("io/tributary/") && name.endsWith(".class")).toList();
    }
    assertThat(ours).contains("io/tributary/launcher/Tributary.class", "io/tributary/silver/SilverMergeJob.class");
    // No demo, local broker, sample producer or notebook helper (devtools, local-stack), and no test class.
    assertThat(ours).extracting(name -> name.split("/")[2]).containsOnly("bronze", "common", "gold", "launcher",
        "maintenance", "silver");
    assertThat(ours).contains("io/tributary/gold/ModelTest.class") // a gold model's test: production code
        .noneMatch(name -> name.startsWith("io/tributary/common/testing/")
            || name.matches(".*(IT|Fixture|Test)(\\$.*)?\\.class")
            && !name.startsWith("io/tributary/gold/ModelTest"));
    // Iceberg's Spark runtime alone is 48 MB and Kafka's client and source and Delta most of the rest (72 MB on
    // 2026-12-05); a bound well under what any of Spark, Hadoop or Scala would add catches one shaded by mistake.
    assertThat(Files.size(jar)).isLessThan(80L << 20);
  }
}
