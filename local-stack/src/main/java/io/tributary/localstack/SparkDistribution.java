package io.tributary.localstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * What a Spark distribution holds beside an application, and the application jar, both from the launcher module's
 * build folder: Spark's jars are the launcher's local classpath (the files {@code local-provided.classpath} and
 * {@code local-runtime.classpath} that bin/tributary runs with) without what the shade plugin puts into
 * {@code tributary-<version>.jar}. With that jar they make the classpath of {@code spark-submit} on a cluster, which
 * tests and benchmarks run the jar with.
 */
public final class SparkDistribution {
  /** Jars the shade plugin puts into the application jar: on a cluster they come with it, not with Spark. */
  private static final List<String> SHADED = List.of("/io/tributary/", "/tributary-", "/org/apache/iceberg/",
      "/io/delta/", "/io/unitycatalog/", "/spark-sql-kafka-0-10_", "/spark-token-provider-kafka-0-10_",
      "/kafka-clients/", "/commons-pool2/", "/jackson-datatype-jdk8/", "/com/typesafe/config/");

  private SparkDistribution() {}

  /** Spark's jars and what they need, as a distribution's {@code jars/} folder has them. */
  public static List<Path> jars(Path launcherTarget) {
    List<Path> jars = new ArrayList<>();
    for (String entry : read(launcherTarget.resolve("local-provided.classpath"))) {
      jars.add(Path.of(entry));
    }
    for (String entry : read(launcherTarget.resolve("local-runtime.classpath"))) {
      if (SHADED.stream().noneMatch(entry::contains)) {
        jars.add(Path.of(entry));
      }
    }
    return jars.stream().filter(jar -> jar.toString().endsWith(".jar")).distinct().toList();
  }

  /** {@link #jars} as a classpath. */
  public static String classpath(Path launcherTarget) {
    return String.join(":", jars(launcherTarget).stream().map(Path::toString).toList());
  }

  /** The shaded jar that {@code spark-submit} runs: {@code tributary-<version>.jar}. */
  public static Path applicationJar(Path launcherTarget) {
    try (Stream<Path> files = Files.list(launcherTarget)) {
      List<Path> jars = files.filter(file -> {
        String name = file.getFileName().toString();
        return name.startsWith("tributary-") && name.endsWith(".jar") && !name.startsWith("tributary-launcher-");
      }).toList();
      if (jars.size() != 1) {
        throw new IllegalStateException("Expected one tributary-<version>.jar in " + launcherTarget + " (build with"
            + " mvn -DskipTests install), found " + jars);
      }
      return jars.get(0).toAbsolutePath();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> read(Path file) {
    try {
      return List.of(Files.readString(file).trim().split(":"));
    } catch (IOException e) {
      throw new UncheckedIOException("The launcher's classpath file " + file + " is missing: build with"
          + " mvn -DskipTests install", e);
    }
  }
}
