package io.tributary.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * What {@code --version} prints: this build, the versions it was built against, and the Spark and Java it runs on
 * (under spark-submit, the cluster's Spark, which may differ from the one it was built for).
 */
final class TributaryVersion implements IVersionProvider {
  @Override
  public String[] getVersion() {
    Properties built = new Properties();
    try (InputStream in = TributaryVersion.class.getResourceAsStream("version.properties")) {
      if (in != null) {
        built.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new String[] {
        "tributary " + built.getProperty("tributary", "(unknown build)"),
        "built for Spark " + built.getProperty("spark") + " (Scala " + built.getProperty("scala") + "), Iceberg "
            + built.getProperty("iceberg") + ", Delta Lake " + built.getProperty("delta") + ", Kafka clients "
            + built.getProperty("kafka-clients"),
        "running on Spark " + org.apache.spark.package$.MODULE$.SPARK_VERSION() + ", Java "
            + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")"};
  }
}
