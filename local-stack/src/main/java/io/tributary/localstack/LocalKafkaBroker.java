package io.tributary.localstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * A real Kafka broker in KRaft mode (combined broker and controller), run from the Maven {@code kafka_2.13} jars in
 * a JVM of its own, bound to 127.0.0.1 on free ports, with its data and log under one folder.
 *
 * <p>The broker's classpath comes from the {@code tributary-kafka-broker-runtime} module and is never mixed with
 * Spark's. {@code bin/tributary kafka start|stop|status} and the tests use this class alike.
 */
public final class LocalKafkaBroker {
  private static final String CLASSPATH_RESOURCE = "/tributary/kafka-broker.classpath";
  private static final String STATE_FILE = "broker.state";
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(90);

  private final Path home;
  private final int port;
  private final int controllerPort;
  private final long pid;

  private LocalKafkaBroker(Path home, int port, int controllerPort, long pid) {
    this.home = home;
    this.port = port;
    this.controllerPort = controllerPort;
    this.pid = pid;
  }

  /**
   * Starts a broker whose data lives under {@code home} (formatted on first use) and waits until it serves
   * requests. The broker keeps running after this JVM exits; call {@link #stop()} to end it.
   *
   * @param extraProperties broker settings on top of the defaults (e.g. a short retention check interval); in a
   *     value, {@code {port}} and {@code {controller-port}} stand for the broker's plaintext and controller ports
   */
  public static LocalKafkaBroker start(Path home, Map<String, String> extraProperties) {
    try {
      Files.createDirectories(home);
      Optional<LocalKafkaBroker> running = find(home);
      if (running.isPresent()) {
        return running.get();
      }
      Properties state = readState(home).orElseGet(Properties::new);
      int port = reuseOrPick(state.getProperty("port"));
      int controllerPort = reuseOrPick(state.getProperty("controller-port"));
      Path properties = writeServerProperties(home, port, controllerPort, extraProperties);
      Path log4j = writeQuietLogConfig(home);
      if (!Files.exists(home.resolve("data/meta.properties"))) {
        format(home, properties, log4j);
      }
      ProcessBuilder builder = new ProcessBuilder(javaCommand(log4j, "kafka.Kafka",
          properties.toAbsolutePath().toString()))
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("broker.log").toFile()));
      Process process = builder.start();
      LocalKafkaBroker broker = new LocalKafkaBroker(home, port, controllerPort, process.pid());
      broker.writeState();
      broker.awaitReady(process);
      return broker;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start the local Kafka broker in " + home, e);
    }
  }

  /** The broker started from {@code home} if it is still running. */
  public static Optional<LocalKafkaBroker> find(Path home) {
    return readState(home).flatMap(state -> {
      long pid = Long.parseLong(state.getProperty("pid", "-1"));
      if (!isOurBroker(pid, home)) {
        return Optional.empty();
      }
      return Optional.of(new LocalKafkaBroker(home, Integer.parseInt(state.getProperty("port")),
          Integer.parseInt(state.getProperty("controller-port")), pid));
    });
  }

  /** Alive, and really a Kafka broker on this home's config: after a reboot the pid may be another process. */
  private static boolean isOurBroker(long pid, Path home) {
    if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
      return false;
    }
    // ProcessHandle.Info leaves out the arguments of long command lines; /proc has them all (Linux).
    Path cmdline = Path.of("/proc", String.valueOf(pid), "cmdline");
    if (!Files.isReadable(cmdline)) {
      return true;
    }
    try {
      String command = Files.readString(cmdline, StandardCharsets.UTF_8).replace('\0', ' ');
      return command.contains("kafka.Kafka")
          && command.contains(home.toAbsolutePath().resolve("server.properties").toString());
    } catch (IOException e) {
      return true;
    }
  }

  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  public long pid() {
    return pid;
  }

  public Path home() {
    return home;
  }

  /** Whether the broker process is alive and its listener accepts connections. */
  public boolean isServing() {
    if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
      return false;
    }
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Stops the broker (orderly shutdown first, then a kill after 30 s). Its data stays for the next start. */
  public void stop() {
    if (!isOurBroker(pid, home)) {
      return;
    }
    ProcessHandle.of(pid).ifPresent(handle -> {
      handle.destroy();
      try {
        handle.onExit().get(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        handle.destroyForcibly();
      }
    });
  }

  /**
   * Runs one of Kafka's tools (ConsumerPerformance, GetOffsetShell, ...) on the broker's classpath, in its own JVM,
   * and returns what it printed. Fails when the tool exits non-zero or runs past the timeout.
   */
  public String runTool(Duration timeout, String mainClass, String... args) {
    try {
      Path output = Files.createTempFile(home, "tool-", ".out");
      Process tool = new ProcessBuilder(javaCommand(home.resolve("log4j2.properties"), mainClass, args))
          .redirectErrorStream(true)
          .redirectOutput(output.toFile())
          .start();
      boolean finished = tool.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
      String printed = Files.readString(output);
      Files.deleteIfExists(output);
      if (!finished) {
        tool.destroyForcibly();
        throw new IllegalStateException(mainClass + " did not finish within " + timeout + ":\n" + printed);
      }
      if (tool.exitValue() != 0) {
        throw new IllegalStateException(mainClass + " exited with " + tool.exitValue() + ":\n" + printed);
      }
      return printed;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while running " + mainClass, e);
    }
  }

  /** The JVM command that runs {@code mainClass} on the broker's own classpath; the tools use it too. */
  static List<String> javaCommand(Path log4j, String mainClass, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xms256m");
    command.add("-Xmx1g");
    // A single local broker for the demo and the tests carries little load; what CPU there is goes to Spark. C1
    // alone and the serial collector keep its own share small on a 2-core laptop.
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-XX:ReservedCodeCacheSize=240m"); // C1 alone would shrink it to 48 MB
    command.add("-XX:+UseSerialGC");
    command.add("-Dlog4j2.configurationFile=" + log4j.toUri());
    command.add("-cp");
    command.add(brokerClasspath());
    command.add(mainClass);
    command.addAll(List.of(args));
    return command;
  }

  static String brokerClasspath() {
    return ServerProcesses.classpath(CLASSPATH_RESOURCE);
  }

  private static void format(Path home, Path properties, Path log4j) throws IOException {
    String clusterId = Uuid.randomUuid().toString();
    Process format = new ProcessBuilder(javaCommand(log4j, "kafka.tools.StorageTool",
        "format", "-t", clusterId, "-c", properties.toString()))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("broker.log").toFile()))
        .start();
    try {
      if (!format.waitFor(60, TimeUnit.SECONDS) || format.exitValue() != 0) {
        format.destroyForcibly();
        throw new IllegalStateException("Formatting the Kafka storage failed; see " + home.resolve("broker.log")
            + ":\n" + tail(home.resolve("broker.log")));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while formatting Kafka storage", e);
    }
  }

  private void awaitReady(Process process) {
    Instant deadline = Instant.now().plus(STARTUP_TIMEOUT);
    Map<String, Object> adminProperties = Map.of(
        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000,
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 2000);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("The Kafka broker exited with code " + process.exitValue() + "; see "
            + home.resolve("broker.log") + ":\n" + tail(home.resolve("broker.log")));
      }
      if (isServing()) {
        try (Admin admin = Admin.create(adminProperties)) {
          if (!admin.describeCluster().nodes().get(2, TimeUnit.SECONDS).isEmpty()) {
            return;
          }
        } catch (Exception notYet) {
          // The listener is up before the broker has registered with its controller; poll again.
        }
      }
      sleepQuietly(200);
    }
    process.destroyForcibly();
    throw new IllegalStateException("The Kafka broker did not come up within " + STARTUP_TIMEOUT.toSeconds()
        + " s; see " + home.resolve("broker.log"));
  }

  private static Path writeServerProperties(Path home, int port, int controllerPort, Map<String, String> extra)
      throws IOException {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("process.roles", "broker,controller");
    settings.put("node.id", "1");
    settings.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    settings.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
    settings.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
    settings.put("controller.listener.names", "CONTROLLER");
    settings.put("inter.broker.listener.name", "PLAINTEXT");
    settings.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT");
    settings.put("log.dirs", home.resolve("data").toAbsolutePath().toString());
    settings.put("num.partitions", "2");
    settings.put("offsets.topic.replication.factor", "1");
    settings.put("transaction.state.log.replication.factor", "1");
    settings.put("transaction.state.log.min.isr", "1");
    settings.put("share.coordinator.state.topic.replication.factor", "1");
    settings.put("share.coordinator.state.topic.min.isr", "1");
    settings.put("group.initial.rebalance.delay.ms", "0");
    // Room for large raw records (bronze keeps values of several MB byte for byte).
    settings.put("message.max.bytes", String.valueOf(16 * 1024 * 1024));
    settings.put("auto.create.topics.enable", "false");
    // An extra setting may name the broker's own ports, e.g. listeners with a secured listener added.
    extra.forEach((key, value) -> settings.put(key, value.replace("{port}", Integer.toString(port))
        .replace("{controller-port}", Integer.toString(controllerPort))));
    StringBuilder text = new StringBuilder("# Written by Tributary's local stack on each start.\n");
    settings.forEach((key, value) -> text.append(key).append('=').append(value).append('\n'));
    Path file = home.resolve("server.properties");
    Files.writeString(file, text.toString());
    return file;
  }

  /**
   * A log4j2 config for Kafka's JVMs (broker, tools, a Connect worker): warnings only, plus the broker's start line.
   */
  public static Path writeQuietLogConfig(Path folder) throws IOException {
    Path file = folder.resolve("log4j2.properties");
    Files.writeString(file, String.join("\n",
        "status = warn",
        "appender.console.type = Console",
        "appender.console.name = STDOUT",
        "appender.console.layout.type = PatternLayout",
        "appender.console.layout.pattern = [%d] %p %m (%c)%n",
        "rootLogger.level = WARN",
        "rootLogger.appenderRef.stdout.ref = STDOUT",
        "logger.server.name = kafka.server.KafkaRaftServer",
        "logger.server.level = INFO",
        ""));
    return file;
  }

  private void writeState() throws IOException {
    Properties state = new Properties();
    state.setProperty("pid", String.valueOf(pid));
    state.setProperty("port", String.valueOf(port));
    state.setProperty("controller-port", String.valueOf(controllerPort));
    state.setProperty("bootstrap-servers", bootstrapServers());
    try (var out = Files.newBufferedWriter(home.resolve(STATE_FILE))) {
      state.store(out, "local Kafka broker");
    }
  }

  private static Optional<Properties> readState(Path home) {
    Path file = home.resolve(STATE_FILE);
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    Properties state = new Properties();
    try (var in = Files.newBufferedReader(file)) {
      state.load(in);
      return Optional.of(state);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** Keeps the ports of an earlier start when they are free, so a restarted broker has the same address. */
  private static int reuseOrPick(String previous) throws IOException {
    if (previous != null) {
      try (ServerSocket socket = new ServerSocket()) {
        socket.bind(new InetSocketAddress("127.0.0.1", Integer.parseInt(previous)));
        return socket.getLocalPort();
      } catch (IOException taken) {
        // fall through to a fresh port
      }
    }
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress("127.0.0.1", 0));
      return socket.getLocalPort();
    }
  }

  /** The last lines of the broker's log, for a test or command that reports a failed request. */
  public String logTail() {
    return tail(home.resolve("broker.log"));
  }

  static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(no log)";
    }
  }

  private static void sleepQuietly(long millis) {
    ServerProcesses.pause(millis, "the Kafka broker");
  }
}
