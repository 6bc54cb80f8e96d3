package io.tributary.benchmarks;

import io.tributary.common.lakehouse.CommitWindowPause;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One process of a benchmark (chaos, freshness), started as a user starts it ({@code bin/tributary <command> --config FILE}, which
 * execs the JVM: the process is the job), its output appended to {@code <command>.log} in the run's folder.
 */
final class JobProcess {
  /** The progress log's line for a streaming query that has started (StreamProgressLog). */
  private static final String STREAM_STARTED = "started (query id";

  /** Each process's heap: two streaming jobs and the benchmark's own session share the machine. */
  static final String HEAP = "-Xmx2g";

  private final String command;
  private final Path log;
  private final Process process;
  private final long windowsAtStart;
  private final long streamStartsAtStart;
  private final ChaosBenchmark.Moment moment;

  private JobProcess(String command, Path log, Process process, long windowsAtStart, long streamStartsAtStart,
      ChaosBenchmark.Moment moment) {
    this.command = command;
    this.log = log;
    this.process = process;
    this.windowsAtStart = windowsAtStart;
    this.streamStartsAtStart = streamStartsAtStart;
    this.moment = moment;
  }

  /** Starts the command; one whose next kill aims at the commit window holds each window open for 3 s. */
  static JobProcess start(Path folder, Path config, String bootstrapServers, String command,
      ChaosBenchmark.Moment moment, String... extraArgs) throws IOException {
    Path log = folder.resolve(command + ".log");
    long windows = count(log, CommitWindowPause.MARKER);
    long streamStarts = count(log, STREAM_STARTED);
    String[] base = {Path.of("bin", "tributary").toAbsolutePath().toString(), command, "--config", config.toString()};
    String[] args = Stream.concat(Stream.of(base), Stream.of(extraArgs)).toArray(String[]::new);
    ProcessBuilder builder = new ProcessBuilder(args)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().put("TRIBUTARY_KAFKA_BOOTSTRAP_SERVERS", bootstrapServers);
    builder.environment().put("TRIBUTARY_SKIP_BUILD", "1");
    // TRIBUTARY_BENCH_SILVER_OPTS (and _BRONZE_, ...) adds JVM options to one job, e.g. a flight recording.
    String extra = System.getenv("TRIBUTARY_BENCH_" + command.toUpperCase(java.util.Locale.ROOT) + "_OPTS");
    builder.environment().put("TRIBUTARY_JAVA_OPTS", HEAP + (extra == null ? "" : " " + extra)
        + (moment == ChaosBenchmark.Moment.COMMIT_WINDOW ? " -D" + CommitWindowPause.PROPERTY + "=3000" : ""));
    return new JobProcess(command, log, builder.start(), windows, streamStarts, moment);
  }

  String command() {
    return command;
  }

  ChaosBenchmark.Moment moment() {
    return moment;
  }

  /** Whether the process opened a commit window within {@code atMost}; it is then holding it open. */
  boolean awaitCommitWindow(Duration atMost) throws Exception {
    return awaitMoreLines(CommitWindowPause.MARKER, windowsAtStart, atMost);
  }

  /**
   * Whether the process has started a streaming query within {@code atMost} (its JVM and session are up): a kill at
   * a random moment is drawn from the time after that, not from the JVM's start, which would be most of them.
   */
  boolean awaitStreaming(Duration atMost) throws Exception {
    return awaitMoreLines(STREAM_STARTED, streamStartsAtStart, atMost);
  }

  /** Whether the log holds more lines with {@code text} than {@code atStart} before the deadline or the exit. */
  private boolean awaitMoreLines(String text, long atStart, Duration atMost) throws Exception {
    long deadline = System.nanoTime() + atMost.toNanos();
    while (System.nanoTime() < deadline && process.isAlive()) {
      if (count(log, text) > atStart) {
        return true;
      }
      Thread.sleep(100);
    }
    return false;
  }

  /** SIGTERM (the JVM's shutdown hooks run: a flight recording is written), then SIGKILL after 30 s. */
  void stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      kill();
    }
  }

  /** SIGKILL, and wait until the process is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** The CPU time the process has used so far (zero where the system does not say). */
  Duration cpu() {
    return process.info().totalCpuDuration().orElse(Duration.ZERO);
  }

  boolean hasExited() {
    return !process.isAlive();
  }

  int exitCode() {
    return process.exitValue();
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

  private static long count(Path log, String text) throws IOException {
    if (!Files.exists(log)) {
      return 0;
    }
    try (Stream<String> lines = Files.lines(log)) {
      return lines.filter(line -> line.contains(text)).count();
    }
  }
}
