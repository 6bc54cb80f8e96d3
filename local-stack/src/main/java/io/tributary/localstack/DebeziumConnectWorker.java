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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Kafka Connect worker (standalone mode) running Debezium connectors, in a JVM of its own whose classpath comes
 * from the {@code tributary-debezium-connect-runtime} module: Kafka Connect 4.3.0 and Debezium 3.6.1.Final, never
 * mixed with Spark's or the broker's. Offsets are kept in a file under the worker's folder, so a worker started again
 * on the same folder goes on where it stopped. Topics are created by Connect itself (the local broker does not
 * create topics on demand).
 */
public final class DebeziumConnectWorker implements AutoCloseable {
  private static final String CLASSPATH_RESOURCE = "/tributary/debezium-connect.classpath";
  private static final Duration START_TIMEOUT = Duration.ofMinutes(3);

  private final Path home;
  private final Process process;
  private final int restPort;
  private final List<String> connectors;

  private DebeziumConnectWorker(Path home, Process process, int restPort, List<String> connectors) {
    this.home = home;
    this.process = process;
    this.restPort = restPort;
    this.connectors = connectors;
  }

  /**
   * Starts a worker writing to {@code bootstrapServers} with each connector's settings ({@code name} and
   * {@code connector.class} among them; a connector may set its own {@code key.converter} and
   * {@code value.converter}) and returns once every connector's task runs.
   *
   * @param worker worker settings beyond the defaults (converters: Kafka Connect's JSON converter with schemas)
   */
  public static DebeziumConnectWorker start(Path home, String bootstrapServers, Map<String, String> worker,
      List<Map<String, String>> connectors) {
    try {
      Files.createDirectories(home);
      int restPort;
      try (ServerSocket socket = new ServerSocket()) {
        socket.bind(new InetSocketAddress("127.0.0.1", 0));
        restPort = socket.getLocalPort();
      }
      Map<String, String> settings = new LinkedHashMap<>();
      settings.put("bootstrap.servers", bootstrapServers);
      settings.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
      settings.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
      settings.put("key.converter.schemas.enable", "true");
      settings.put("value.converter.schemas.enable", "true");
      settings.put("offset.storage.file.filename", home.resolve("offsets").toString());
      settings.put("offset.flush.interval.ms", "1000");
      settings.put("listeners", "http://127.0.0.1:" + restPort);
      settings.put("plugin.discovery", "only_scan");
      settings.putAll(worker);
      Path workerFile = write(home.resolve("worker.properties"), settings);
      List<String> connectorFiles = new ArrayList<>();
      for (Map<String, String> connector : connectors) {
        Map<String, String> connectorSettings = new LinkedHashMap<>();
        connectorSettings.put("topic.creation.default.replication.factor", "1");
        connectorSettings.put("topic.creation.default.partitions", "1");
        connectorSettings.putAll(connector);
        connectorFiles.add(write(home.resolve(connector.get("name") + ".properties"), connectorSettings).toString());
      }
      Path log4j = LocalKafkaBroker.writeQuietLogConfig(home);
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(List.of("-Xms256m", "-Xmx1g", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
          "-Dlog4j2.configurationFile=" + log4j.toUri(), "-cp", classpath(),
          "org.apache.kafka.connect.cli.ConnectStandalone", workerFile.toString()));
      command.addAll(connectorFiles);
      Process process = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("connect.log").toFile())).start();
      DebeziumConnectWorker started = new DebeziumConnectWorker(home, process, restPort,
          connectors.stream().map(connector -> connector.get("name")).toList());
      started.awaitRunning();
      return started;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start a Kafka Connect worker in " + home, e);
    }
  }

  /** Each connector's status as Connect's REST API reports it (JSON), one per line. */
  public String status() {
    return String.join("\n", connectors.stream().map(this::status).toList());
  }

  private String status(String connector) {
    try {
      HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
          "http://127.0.0.1:" + restPort + "/connectors/" + connector + "/status")).timeout(Duration.ofSeconds(10))
          .build(), HttpResponse.BodyHandlers.ofString());
      return response.body();
    } catch (IOException e) {
      return "(no answer: " + e.getMessage() + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "(interrupted)";
    }
  }

  private void awaitRunning() {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("The Kafka Connect worker exited (" + process.exitValue() + "):\n"
            + logTail());
      }
      String status = status();
      if (status.contains("\"FAILED\"")) {
        close();
        throw new IllegalStateException("A connector failed: " + status + "\n" + logTail());
      }
      // Each connector and its one task.
      if (status.split("\"state\":\"RUNNING\"", -1).length - 1 >= 2 * connectors.size()) {
        return;
      }
      ServerProcesses.pause(500, "the connector");
    }
    close();
    throw new IllegalStateException("The connectors did not run within " + START_TIMEOUT.toSeconds() + " s: "
        + status() + "\n" + logTail());
  }

  /** The last lines of the worker's log. */
  public String logTail() {
    return LocalKafkaBroker.tail(home.resolve("connect.log"));
  }

  @Override
  public void close() {
    ServerProcesses.stop(process);
  }

  private static Path write(Path file, Map<String, String> settings) throws IOException {
    StringBuilder text = new StringBuilder();
    settings.forEach((key, value) -> text.append(key).append('=').append(value.replace("\\", "\\\\")).append('\n'));
    return Files.writeString(file, text);
  }

  private static String classpath() {
    return ServerProcesses.classpath(CLASSPATH_RESOURCE);
  }
}
