package io.tributary.localstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Apache Iceberg's REST catalog server ({@code org.apache.iceberg.rest.RESTCatalogServer}, the server of Iceberg's
 * REST compatibility kit) in a JVM of its own, keeping its tables in a JDBC catalog on a database (PostgreSQL here)
 * and their files under a local warehouse. Its classpath comes from the {@code tributary-iceberg-rest-runtime}
 * module. Clients reach it at {@link #uri()}.
 */
public final class LocalIcebergRestCatalog implements AutoCloseable {
  private static final String CLASSPATH_RESOURCE = "/tributary/iceberg-rest.classpath";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

  private final Path home;
  private final Process process;
  private final int port;

  private LocalIcebergRestCatalog(Path home, Process process, int port) {
    this.home = home;
    this.process = process;
    this.port = port;
  }

  /**
   * Starts the server on a free port.
   *
   * @param home a folder for its log
   * @param jdbcUrl the database its catalog keeps the tables in
   * @param jdbcUser the database user (no password)
   * @param warehouse where new tables' files go
   */
  public static LocalIcebergRestCatalog start(Path home, String jdbcUrl, String jdbcUser, Path warehouse) {
    try {
      Files.createDirectories(home);
      int port;
      try (ServerSocket socket = new ServerSocket()) {
        socket.bind(new InetSocketAddress("127.0.0.1", 0));
        port = socket.getLocalPort();
      }
      ProcessBuilder builder = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
          .toString(), "-Xms128m", "-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", classpath(),
          "org.apache.iceberg.rest.RESTCatalogServer")).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("rest-catalog.log").toFile()));
      // The server takes its catalog's settings from CATALOG_* variables (CATALOG_JDBC_USER is jdbc.user).
      Map<String, String> environment = builder.environment();
      environment.keySet().removeIf(name -> name.startsWith("CATALOG_"));
      environment.put("CATALOG_URI", jdbcUrl);
      environment.put("CATALOG_JDBC_USER", jdbcUser);
      environment.put("CATALOG_WAREHOUSE", warehouse.toAbsolutePath().toString());
      environment.put("CATALOG_REST_PORT", Integer.toString(port));
      LocalIcebergRestCatalog server = new LocalIcebergRestCatalog(home, builder.start(), port);
      server.awaitAnswer();
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start the Iceberg REST catalog server in " + home, e);
    }
  }

  /** The catalog's URI, for a client's {@code uri} property. */
  public String uri() {
    return "http://127.0.0.1:" + port + "/";
  }

  private void awaitAnswer() {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    HttpClient client = HttpClient.newHttpClient();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("The Iceberg REST catalog server exited (" + process.exitValue() + "):\n"
            + logTail());
      }
      try {
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(uri() + "v1/config"))
            .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the REST catalog server", e);
      }
      ServerProcesses.pause(300, "the REST catalog server");
    }
    close();
    throw new IllegalStateException("The Iceberg REST catalog server did not answer within "
        + START_TIMEOUT.toSeconds() + " s:\n" + logTail());
  }

  /** The last lines of the server's log. */
  public String logTail() {
    return LocalKafkaBroker.tail(home.resolve("rest-catalog.log"));
  }

  @Override
  public void close() {
    ServerProcesses.stop(process);
  }

  private static String classpath() {
    return ServerProcesses.classpath(CLASSPATH_RESOURCE);
  }
}
