package io.tributary.localstack;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * What every local server that runs in a JVM of its own (broker, Connect worker, REST catalog, S3 endpoint, Spark
 * cluster) does alike: find its classpath, which the build writes as a resource, wait between polls, and stop.
 */
final class ServerProcesses {
  private ServerProcesses() {}

  /** The classpath the build wrote to {@code resource} for one of the servers. */
  static String classpath(String resource) {
    try (InputStream in = ServerProcesses.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("Missing " + resource + ": build the project with Maven first");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits {@code millis} between two polls of a server that is starting; {@code server} names it if interrupted. */
  static void pause(long millis, String server) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while waiting for " + server, e);
    }
  }

  /** Asks the process to end (its shutdown hooks run), and kills it when it has not within 30 s. */
  static void stop(Process process) {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
