package io.tributary.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.localstack.SparkDistribution;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Airflow DAGs in {@code airflow-dags/}, tested without Airflow (it cannot be installed here): their Python
 * tests parse every DAG with {@code ast}, check the conventions, and run every spark-submit call through the shaded
 * jar's validation mode, on the classpath spark-submit would give it (the jar and Spark's own jars). Needs Debian's
 * {@code python3} with {@code python3-croniter} ({@code .ci/run} installs it).
 */
class AirflowDagsIT {

  @Test
  void everyDagPassesItsChecksAndTheJarAcceptsEverySubmittedCommand(@TempDir Path dir) throws Exception {
    Path repo = Path.of("..").toAbsolutePath().normalize();
    Path target = Path.of("target");
    Path jar = SparkDistribution.applicationJar(target);
    Process check = new ProcessBuilder("/usr/bin/python3", "-c", "import croniter").redirectErrorStream(true).start();
    assertThat(check.waitFor()).as("Debian's python3 with python3-croniter is needed for the DAG tests:"
        + " apt-get install python3 python3-croniter (.ci/run does)").isZero();
    Path log = dir.resolve("dag-tests.log");
    ProcessBuilder python = new ProcessBuilder(List.of("/usr/bin/python3", "-m", "unittest", "discover", "-v", "-s",
        repo.resolve("airflow-dags/tests").toString()))
        .directory(repo.toFile())
        .redirectErrorStream(true)
        .redirectOutput(log.toFile());
    Map<String, String> env = python.environment();
    env.put("TRIBUTARY_JAR", jar.toAbsolutePath().toString());
    env.put("TRIBUTARY_CLASSPATH", jar.toAbsolutePath() + ":" + SparkDistribution.classpath(target));
    env.put("TRIBUTARY_CONFIG", repo.resolve("conf/application.conf").toString());
    env.put("TRIBUTARY_REPO", repo.toString());
    env.put("JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
    Process process = python.start();
    assertThat(process.waitFor(10, TimeUnit.MINUTES)).as("the DAG tests finish").isTrue();
    String output = Files.readString(log);
    System.out.println(output);
    assertThat(process.exitValue()).as(output).isZero();
    assertThat(output).contains("test_the_jar_accepts_every_call", "test_a_wrong_argument_in_a_copy_of_a_dag_is_rejected"
        + "_with_the_jars_message").doesNotContain("skipped");
  }
}
