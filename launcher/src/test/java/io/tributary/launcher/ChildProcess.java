package io.tributary.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.common.lakehouse.CommitWindowPause;
import io.tributary.common.lakehouse.PlannedBatchHold;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs the launcher in a JVM of its own, as bin/tributary or spark-submit would, so a test can kill it for real.
 * Public for the devtools tests, which run their own entry point the same way.
 */
public final class ChildProcess {
  private ChildProcess() {}

  /**
   * What every JVM a test starts gets: Spark's flags for this Java and the test JVMs' tuning (C1 only), as the
   * build passes them to the test JVM ({@code test.jvm.flags}, {@code test.jvm.tuning}).
   */
  public static List<String> testJvmFlags() {
    return Stream.of("test.jvm.flags", "test.jvm.tuning")
        .flatMap(property -> Arrays.stream(System.getProperty(property, "").trim().split("\\s+")))
        .filter(flag -> !flag.isEmpty()).toList();
  }

  static Process start(Path log, String... args) throws IOException {
    return start(System.getProperty("java.class.path"), List.of(), log, args);
  }

  /** Runs another entry point than the launcher's on this JVM's classpath, with the same settings. */
  public static Process startMain(String mainClass, Path log, String... args) throws IOException {
    return start(mainClass, System.getProperty("java.class.path"), List.of(), java.util.Map.of(), log, args);
  }

  /**
   * Like {@link #start(Path, String...)}, with every micro-batch holding the window between its table commit and
   * Spark's checkpoint commit open for a few seconds ({@link CommitWindowPause}), so that a kill lands in it.
   */
  static Process startHoldingCommitWindows(Path log, String... args) throws IOException {
    return start(System.getProperty("java.class.path"), List.of("-D" + CommitWindowPause.PROPERTY + "=4000"), log,
        args);
  }

  /**
   * Like {@link #start(Path, String...)}, with every micro-batch held between deciding what to write and its table
   * commit while {@code release} exists ({@link PlannedBatchHold}).
   */
  static Process startHoldingBeforeTableCommit(Path log, Path release, String... args) throws IOException {
    return start(System.getProperty("java.class.path"), List.of("-D" + PlannedBatchHold.PROPERTY + "=" + release),
        log, args);
  }

  /** Kills the process with SIGKILL and checks that it died of it. */
  static void kill(Process process) throws InterruptedException {
    process.destroyForcibly();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as("killed by SIGKILL").isEqualTo(137);
  }

  /** Runs a command to its end (it must exit 0 within {@code atMost}); returns the lines it added to the log. */
  static List<String> runToEnd(Path log, Duration atMost, String... args) throws Exception {
    long before = Files.exists(log) ? Files.readAllLines(log).size() : 0;
    Process process = start(log, args);
    assertThat(process.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS)).as("ended in time").isTrue();
    assertThat(process.exitValue()).as("log:\n%s", tail(log)).isZero();
    List<String> lines = Files.readAllLines(log);
    return lines.subList((int) before, lines.size());
  }

  /** How many commit windows the processes writing this log have opened so far. */
  static long commitWindows(Path log) throws IOException {
    return count(log, CommitWindowPause.MARKER);
  }

  /** How many lines of the log contain the text. */
  static long count(Path log, String text) throws IOException {
    if (!Files.exists(log)) {
      return 0;
    }
    try (Stream<String> lines = Files.lines(log)) {
      return lines.filter(line -> line.contains(text)).count();
    }
  }

  /**
   * Waits (polling, up to three minutes) until the log holds {@code windows} commit windows, then kills the process
   * with SIGKILL while it holds the last one open.
   */
  static void killInCommitWindow(Process process, Path log, long windows) throws Exception {
    await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(100))
        .until(() -> !process.isAlive() || commitWindows(log) >= windows);
    assertThat(process.isAlive()).as("still running; log:\n%s", tail(log)).isTrue();
    kill(process);
  }

  /** The last 40 lines of a child's log, for a failure message. */
  static String tail(Path log) throws IOException {
    List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }

  /** With a classpath of the caller's choice, e.g. the shaded jar plus only what a Spark distribution has. */
  static Process start(String classpath, Path log, String... args) throws IOException {
    return start(classpath, List.of(), log, args);
  }

  private static Process start(String classpath, List<String> properties, Path log, String... args)
      throws IOException {
    return start(classpath, properties, java.util.Map.of(), log, args);
  }

  /** With a classpath, system properties ({@code -Dkey=value}) and environment variables of the caller's choice. */
  static Process start(String classpath, List<String> properties, java.util.Map<String, String> environment,
      Path log, String... args) throws IOException {
    return start(Tributary.class.getName(), classpath, properties, environment, log, args);
  }

  private static Process start(String mainClass, String classpath, List<String> properties,
      java.util.Map<String, String> environment, Path log, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(testJvmFlags());
    // A child lives a minute or two in 2 GB: the serial collector's pauses are short there, and it leaves both cores
    // to the work (BronzeCrashIT alone with C1 and the serial collector: 242 s to 215 s, CPU 356 s to 246 s).
    command.add("-XX:+UseSerialGC");
    command.add("-Xmx2g");
    command.add("-Dspark.master=local[2]");
    command.add("-Dspark.ui.enabled=false");
    command.add("-Dspark.driver.bindAddress=127.0.0.1");
    command.add("-Dspark.driver.host=127.0.0.1");
    // What the shared test session uses (SharedSpark): a test's few thousand records need no 200 shuffle partitions,
    // and Delta's snapshot state of a test table no 50 tasks.
    command.add("-Dspark.sql.shuffle.partitions=4");
    command.add("-Dspark.databricks.delta.snapshotPartitions=2");
    command.addAll(properties);
    command.add("-cp");
    command.add(classpath);
    command.add(mainClass);
    command.addAll(Arrays.asList(args));
    Files.createDirectories(log.getParent());
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().putAll(environment);
    Process process = builder.start();
    // A test JVM that is stopped (a timeout, a stopped build) takes its children with it: a silver job left running
    // keeps using a core and skews whatever runs next.
    Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
    return process;
  }
}
