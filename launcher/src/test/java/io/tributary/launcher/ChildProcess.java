package io.tributary.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Runs the launcher in a JVM of its own, as bin/tributary or spark-submit would, so a test can kill it for real. */
final class ChildProcess {
  private ChildProcess() {}

  static Process start(Path log, String... args) throws IOException {
    return start(System.getProperty("java.class.path"), log, args);
  }

  /** The last 40 lines of a child's log, for a failure message. */
  static String tail(Path log) throws IOException {
    List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }

  /** With a classpath of the caller's choice, e.g. the shaded jar plus only what a Spark distribution has. */
  static Process start(String classpath, Path log, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(Arrays.asList(System.getProperty("test.jvm.flags", "").trim().split("\\s+")));
    command.add("-Xmx2g");
    command.add("-Dspark.master=local[2]");
    command.add("-Dspark.ui.enabled=false");
    command.add("-Dspark.driver.bindAddress=127.0.0.1");
    command.add("-Dspark.driver.host=127.0.0.1");
    command.add("-cp");
    command.add(classpath);
    command.add(Tributary.class.getName());
    command.addAll(Arrays.asList(args));
    Files.createDirectories(log.getParent());
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
  }
}
