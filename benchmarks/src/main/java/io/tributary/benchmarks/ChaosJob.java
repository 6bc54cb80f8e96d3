package io.tributary.benchmarks;

import io.tributary.common.lakehouse.CommitWindowPause;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One process of the chaos benchmark, started as a user starts it ({@code bin/tributary <command> --config FILE}, which
 * execs the JVM: the process is the job), its output appended to {@code <command>.log} in the run's folder.
 */
final class ChaosJob {
  private final String command;
  private final Path log;
  private final Process process;
  private final long windowsAtStart;
  private final ChaosBenchmark.Moment moment;

  private ChaosJob(String command, Path log, Process process, long windowsAtStart, ChaosBenchmark.Moment moment) {
    this.command = command;
    this.log = log;
    this.process = process;
    this.windowsAtStart = windowsAtStart;
    this.moment = moment;
  }

  /** Starts the command; one whose next kill aims at the commit window holds each window open for 3 s. */
  static ChaosJob start(Path folder, Path config, String bootstrapServers, String command,
      ChaosBenchmark.Moment moment, String... extraArgs) throws IOException {
    Path log = folder.resolve(command + ".log");
    long windows = commitWindows(log);
    String[] base = {Path.of("bin", "tributary").toAbsolutePath().toString(), command, "--config", config.toString()};
    String[] args = Stream.concat(Stream.of(base), Stream.of(extraArgs)).toArray(String[]::new);
    ProcessBuilder builder = new ProcessBuilder(args)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().put("TRIBUTARY_KAFKA_BOOTSTRAP_SERVERS", bootstrapServers);
    builder.environment().put("TRIBUTARY_JAVA_OPTS", "-Xmx2g"
        + (moment == ChaosBenchmark.Moment.COMMIT_WINDOW ? " -D" + CommitWindowPause.PROPERTY + "=3000" : ""));
    return new ChaosJob(command, log, builder.start(), windows, moment);
  }

  String command() {
    return command;
  }

  ChaosBenchmark.Moment moment() {
    return moment;
  }

  /** Whether the process opened a commit window within {@code atMost}; it is then holding it open. */
  boolean awaitCommitWindow(Duration atMost) throws Exception {
    long deadline = System.nanoTime() + atMost.toNanos();
    while (System.nanoTime() < deadline && process.isAlive()) {
      if (commitWindows(log) > windowsAtStart) {
        return true;
      }
      Thread.sleep(100);
    }
    return false;
  }

  /** SIGKILL, and wait until the process is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** SIGKILL without waiting: for a run that is being stopped. */
  void killQuietly() {
    process.destroyForcibly();
  }

  /** The exit code, or -1 if the process ran past {@code atMost} (it is then killed). */
  int awaitExit(Duration atMost) throws InterruptedException {
    if (!process.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
      kill();
      return -1;
    }
    return process.exitValue();
  }

  private static long commitWindows(Path log) throws IOException {
    if (!Files.exists(log)) {
      return 0;
    }
    try (Stream<String> lines = Files.lines(log)) {
      return lines.filter(line -> line.contains(CommitWindowPause.MARKER)).count();
    }
  }
}
