package io.tributary.benchmarks;

import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.Topics;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.hadoop.HadoopCatalog;

/**
 * The baseline: the Apache Iceberg Kafka Connect sink (1.12.0, on a Kafka Connect 4.3.0 standalone worker in a JVM
 * of its own) loading the same topic into an Iceberg table. Two rates: end to end (from the moment its tasks run
 * until every record is committed, what a reader waits for) and its best burst between two consecutive commits.
 */
final class IcebergConnectSink {
  static final int TASKS = 2;
  static final Duration COMMIT_INTERVAL = Duration.ofSeconds(5);

  /**
   * The worker's offset flush. A sink task that has run out of input answers the coordinator's commit request only
   * when its poll returns, and the worker's offset flush is what makes it return: with Connect's default (60 s) the
   * sink stalls on a finite topic; a sink that should commit promptly needs a short one (Iceberg's own integration
   * tests set 500 ms). Both are measured; the default one is given a few minutes, not the prompt one's half hour,
   * and reported with what it had committed by then.
   */
  enum OffsetFlush {
    PROMPT("500 ms (as Iceberg's integration tests set it)", 500L, Duration.ofMinutes(30)),
    CONNECT_DEFAULT("60 s (Connect's default)", null, Duration.ofMinutes(5));

    final String label;
    final Long millis;
    /** How long the benchmark waits for every record to be committed. */
    final Duration patience;

    OffsetFlush(String label, Long millis, Duration patience) {
      this.label = label;
      this.millis = millis;
      this.patience = patience;
    }
  }

  private IcebergConnectSink() {}

  /**
   * What the sink had committed of {@code records} when the benchmark stopped waiting, after {@code waited} from its
   * tasks running, in {@code commits} commits; its best burst and the commit timeline (seconds after the first
   * commit, total records).
   */
  record Result(long records, long committed, Duration waited, int commits, Rate burst, String timeline) {
    /** The end-to-end rate; empty when the sink had not committed every record within its flush's patience. */
    Optional<Rate> endToEnd() {
      return committed >= records ? Optional.of(new Rate(records, waited.toMillis(), commits)) : Optional.empty();
    }

    /** The end-to-end rate, or what had been committed when the benchmark stopped waiting. */
    String endToEndText() {
      return endToEnd().map(Rate::formatted).orElse(String.format("none: %,d of %,d committed after %d min",
          committed, records, waited.toMinutes()));
    }

    /** The best rate between two commits; none with fewer than two. */
    String burstText() {
      return burst.millis() == 0 ? "-" : burst.formatted();
    }
  }

  static Result measure(LocalKafkaBroker broker, Path work, String topic, long records, OffsetFlush flush)
      throws Exception {
    Path home = work.resolve("connect");
    Path warehouse = home.resolve("warehouse");
    Files.createDirectories(home);
    Path plugins = pluginFolder(home);
    // A control topic per run: a coordinator must not read the commit messages of an earlier run.
    String control = "control-iceberg-" + flush.name().toLowerCase(java.util.Locale.ROOT) + "-" + records;
    Topics.create(Map.of("bootstrap.servers", broker.bootstrapServers()), List.of(control), 1, Map.of());
    int restPort = freePort();
    Path worker = write(home.resolve("worker.properties"), String.join("\n",
        "bootstrap.servers=" + broker.bootstrapServers(),
        "listeners=http://127.0.0.1:" + restPort,
        "key.converter=org.apache.kafka.connect.storage.StringConverter",
        "value.converter=org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable=false",
        "offset.storage.file.filename=" + home.resolve("connect.offsets"),
        "plugin.path=" + plugins,
        flush.millis == null ? "" : "offset.flush.interval.ms=" + flush.millis,
        ""));
    Path sink = write(home.resolve("iceberg-sink.properties"), String.join("\n",
        "name=iceberg-sink",
        "connector.class=org.apache.iceberg.connect.IcebergSinkConnector",
        "tasks.max=" + TASKS,
        "topics=" + topic,
        "iceberg.tables=bench.connect_sink",
        "iceberg.tables.auto-create-enabled=true",
        "iceberg.catalog.type=hadoop",
        "iceberg.catalog.warehouse=" + warehouse.toUri(),
        "iceberg.control.topic=" + control,
        "iceberg.control.commit.interval-ms=" + COMMIT_INTERVAL.toMillis(),
        ""));
    Path log4j = LocalKafkaBroker.writeQuietLogConfig(home);
    // The sink's coordinator logs each commit at INFO: the timeline of the worker log explains its rate.
    Files.writeString(log4j, "logger.sink.name = org.apache.iceberg.connect\nlogger.sink.level = INFO\n",
        java.nio.file.StandardOpenOption.APPEND);
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx2g",
        "-Dlog4j2.configurationFile=" + log4j.toUri(),
        "-cp", classpath("kafka-connect-worker"),
        "org.apache.kafka.connect.cli.ConnectStandalone", worker.toString(), sink.toString()));
    Path log = home.resolve("worker.log");
    Process process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    try {
      Instant running = awaitTasksRunning(process, restPort, log);
      List<Snapshot> snapshots = awaitAllCommitted(process, warehouse, records, flush.patience, log);
      long committed = snapshots.isEmpty() ? 0 : totalRecords(snapshots.get(snapshots.size() - 1));
      return new Result(records, committed, Duration.between(running, Instant.now()), snapshots.size(),
          burst(snapshots), timeline(snapshots));
    } finally {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  /** Polls the worker's REST API until every task of the connector is RUNNING. */
  private static Instant awaitTasksRunning(Process process, int restPort, Path log) throws Exception {
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    java.net.http.HttpRequest status = java.net.http.HttpRequest.newBuilder(
        java.net.URI.create("http://127.0.0.1:" + restPort + "/connectors/iceberg-sink/status")).build();
    Instant deadline = Instant.now().plus(Duration.ofMinutes(3));
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("The Kafka Connect worker exited; see " + log);
      }
      try {
        String body = http.send(status, java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        int running = body.split("\"state\":\"RUNNING\"", -1).length - 1;
        if (running >= TASKS + 1) {
          return Instant.now();
        }
      } catch (java.io.IOException notListeningYet) {
        // The REST server starts a few seconds after the JVM.
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("The Iceberg sink's tasks did not start in 3 minutes; see " + log);
  }

  /**
   * The table's snapshots once they hold every record, or as they are after {@code patience} (the sink's coordinator
   * logs each commit, including the empty ones, in {@code log}).
   */
  private static List<Snapshot> awaitAllCommitted(Process process, Path warehouse, long records, Duration patience,
      Path log) throws Exception {
    HadoopCatalog catalog = new HadoopCatalog(new Configuration(), warehouse.toUri().toString());
    TableIdentifier id = TableIdentifier.of("bench", "connect_sink");
    Instant deadline = Instant.now().plus(patience);
    List<Snapshot> snapshots = new ArrayList<>();
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("The Kafka Connect worker exited; see " + log);
      }
      try {
        Table table = catalog.loadTable(id);
        snapshots = new ArrayList<>();
        table.snapshots().forEach(snapshots::add);
        snapshots.sort(Comparator.comparingLong(Snapshot::timestampMillis));
        if (!snapshots.isEmpty() && totalRecords(snapshots.get(snapshots.size() - 1)) >= records) {
          return snapshots;
        }
      } catch (NoSuchTableException notYet) {
        // The sink creates the table with its first commit.
      }
      Thread.sleep(1000);
    }
    return snapshots;
  }

  /** The fastest stretch between two consecutive commits. */
  private static Rate burst(List<Snapshot> snapshots) {
    Rate best = new Rate(0, 0, 0);
    for (int i = 1; i < snapshots.size(); i++) {
      Rate rate = new Rate(totalRecords(snapshots.get(i)) - totalRecords(snapshots.get(i - 1)),
          snapshots.get(i).timestampMillis() - snapshots.get(i - 1).timestampMillis(), 1);
      if (rate.perSecond() > best.perSecond()) {
        best = rate;
      }
    }
    return best;
  }

  private static String timeline(List<Snapshot> snapshots) {
    if (snapshots.isEmpty()) {
      return "none";
    }
    long start = snapshots.get(0).timestampMillis();
    return snapshots.stream()
        .map(snapshot -> String.format("%.1f s: %,d", (snapshot.timestampMillis() - start) / 1000.0,
            totalRecords(snapshot)))
        .collect(java.util.stream.Collectors.joining("; "));
  }

  private static long totalRecords(Snapshot snapshot) {
    return Long.parseLong(snapshot.summary().getOrDefault("total-records", "0"));
  }

  /** Connect loads a plugin from a folder of jars; the folder links to the jars Maven resolved. */
  private static Path pluginFolder(Path home) throws IOException {
    Path folder = home.resolve("plugins/iceberg-sink");
    Files.createDirectories(folder);
    for (String jar : classpath("iceberg-sink-plugin").split(":")) {
      Path source = Path.of(jar);
      Path link = folder.resolve(source.getFileName());
      if (!Files.exists(link)) {
        Files.createSymbolicLink(link, source);
      }
    }
    return folder.getParent();
  }

  private static String classpath(String name) {
    try (InputStream in = IcebergConnectSink.class.getResourceAsStream("/tributary/" + name + ".classpath")) {
      if (in == null) {
        throw new IllegalStateException("Missing the " + name + " classpath: build the project with Maven first");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path write(Path file, String text) throws IOException {
    Files.writeString(file, text);
    return file;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress("127.0.0.1", 0));
      return socket.getLocalPort();
    }
  }
}
