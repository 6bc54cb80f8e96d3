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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Spark standalone cluster on this machine: a master and workers, each a JVM of its own, started from a Spark
 * distribution's layout assembled from jars (a {@code SPARK_HOME} holding {@code jars/} and a {@code RELEASE} file
 * is all Spark's launcher needs to start executors and drivers). Workers start executors, and in cluster deploy
 * mode drivers, as JVMs of their own, in a work folder per worker. {@link #submit} runs {@code spark-submit}
 * ({@code org.apache.spark.deploy.SparkSubmit}) against it.
 */
public final class LocalSparkCluster implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final Pattern ALIVE_WORKERS = Pattern.compile("\"aliveworkers\"\\s*:\\s*(\\d+)");
  /** The states after which a driver the cluster ran does not change any more. */
  private static final Set<String> DRIVER_ENDED = Set.of("FINISHED", "FAILED", "KILLED", "ERROR");

  /** How many workers, and what each offers to applications. */
  public record Shape(int workers, int coresPerWorker, String memoryPerWorker) {}

  private final Path home;
  private final Path sparkHome;
  private final List<String> jvmFlags;
  private final int masterPort;
  private final int masterUiPort;
  private final List<Process> processes = new ArrayList<>();
  /** Asks the master for its state (workers, drivers) while the cluster is starting and while a driver runs. */
  private final HttpClient http = HttpClient.newHttpClient();

  private LocalSparkCluster(Path home, Path sparkHome, List<String> jvmFlags, int masterPort, int masterUiPort) {
    this.home = home;
    this.sparkHome = sparkHome;
    this.jvmFlags = List.copyOf(jvmFlags);
    this.masterPort = masterPort;
    this.masterUiPort = masterUiPort;
  }

  /**
   * Assembles the distribution under {@code home/spark} and starts the master and the workers on free 127.0.0.1
   * ports; returns once every worker has registered with the master.
   *
   * @param jars Spark's jars and whatever else the cluster's classpath holds (never the application jar)
   * @param jvmFlags what every JVM of the cluster needs on this Java (Spark's {@code --add-opens} flags)
   */
  public static LocalSparkCluster start(Path home, List<Path> jars, List<String> jvmFlags, Shape shape) {
    try {
      Path sparkHome = assemble(home.resolve("spark"), jars);
      LocalSparkCluster cluster = new LocalSparkCluster(home, sparkHome, jvmFlags, freePort(), freePort());
      try {
        cluster.startDaemon("master", List.of("org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
            "--port", Integer.toString(cluster.masterPort), "--webui-port", Integer.toString(cluster.masterUiPort)));
        for (int i = 1; i <= shape.workers(); i++) {
          Path workDir = Files.createDirectories(home.resolve("worker-" + i));
          cluster.startDaemon("worker-" + i, List.of("org.apache.spark.deploy.worker.Worker", cluster.masterUrl(),
              "--host", "127.0.0.1", "--cores", Integer.toString(shape.coresPerWorker()), "--memory",
              shape.memoryPerWorker(), "--webui-port", Integer.toString(freePort()), "--work-dir",
              workDir.toString()));
        }
        cluster.awaitWorkers(shape.workers());
        return cluster;
      } catch (RuntimeException e) {
        cluster.close();
        throw e;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start a Spark standalone cluster in " + home, e);
    }
  }

  /** The master's URL, for {@code --master}. */
  public String masterUrl() {
    return "spark://127.0.0.1:" + masterPort;
  }

  /** The assembled distribution, to be set as {@code SPARK_HOME}. */
  public Path sparkHome() {
    return sparkHome;
  }

  /**
   * Starts {@code spark-submit --master <this cluster> <arguments>} in a JVM of its own (as Spark's
   * {@code bin/spark-submit} does), its output going to {@code log}.
   */
  public Process submit(List<String> arguments, Path log) throws IOException {
    return submit(masterUrl(), arguments, log);
  }

  /**
   * Starts {@code spark-submit --master <master> <arguments>} with this cluster's distribution; a {@code local[N]}
   * master runs the same jar on the same Spark without the cluster, next to which a cluster's run is compared.
   */
  public Process submit(String master, List<String> arguments, Path log) throws IOException {
    // As Spark's launcher does: in client mode and local mode the driver is this JVM, sized by --driver-memory.
    int memory = arguments.indexOf("--driver-memory");
    List<String> command = java(List.of("-Xmx" + (memory >= 0 ? arguments.get(memory + 1) : "1g")));
    command.add("org.apache.spark.deploy.SparkSubmit");
    command.add("--master");
    command.add(master);
    command.addAll(arguments);
    Files.createDirectories(log.getParent());
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    environment(builder.environment());
    Process process = builder.start();
    Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
    return process;
  }

  /**
   * Waits until the driver that a cluster deploy mode submission started has ended, asking the master every 300 ms
   * (spark-submit's own wait asks every 10 s), and returns its last state: FINISHED, FAILED, KILLED or ERROR.
   */
  public String awaitDriver(String driverId, Duration timeout) {
    // A driver's entry in the master's JSON: its id, then its start time and state.
    Pattern driver = Pattern.compile("\"id\"\\s*:\\s*\"" + Pattern.quote(driverId) + "\"");
    Pattern state = Pattern.compile("\"state\"\\s*:\\s*\"(\\w+)\"");
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "not known to the master";
    while (System.nanoTime() < deadline) {
      String master = masterState();
      Matcher found = driver.matcher(master);
      if (found.find()) {
        Matcher driverState = state.matcher(master);
        if (driverState.find(found.end())) {
          last = driverState.group(1);
          if (DRIVER_ENDED.contains(last)) {
            return last;
          }
        }
      }
      ServerProcesses.pause(300, "driver " + driverId);
    }
    throw new IllegalStateException("Driver " + driverId + " did not end within " + timeout.toSeconds() + " s (state: "
        + last + "):\n" + logTails());
  }

  /** The master's state as JSON, or an empty text while the master does not answer. */
  private String masterState() {
    try {
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + masterUiPort + "/json/")).timeout(Duration.ofSeconds(5)).build(),
          HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200 ? response.body() : "";
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while asking the Spark master", e);
    }
  }

  /**
   * The folder a worker gave a driver it ran in cluster deploy mode (its {@code stdout} and {@code stderr} are
   * there), if any worker ran it.
   */
  public Optional<Path> driverFolder(String driverId) {
    try (var workers = Files.list(home)) {
      return workers.filter(folder -> folder.getFileName().toString().startsWith("worker-"))
          .map(folder -> folder.resolve(driverId)).filter(Files::isDirectory).findFirst();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The last lines of the master's and the workers' logs, for a failure message. */
  public String logTails() {
    StringBuilder text = new StringBuilder();
    try (var logs = Files.list(home)) {
      logs.filter(file -> file.getFileName().toString().endsWith(".log")).sorted().forEach(log ->
          text.append("--- ").append(log.getFileName()).append('\n').append(LocalKafkaBroker.tail(log)).append('\n'));
    } catch (IOException e) {
      text.append("(no logs: ").append(e.getMessage()).append(")");
    }
    return text.toString();
  }

  @Override
  public void close() {
    // Workers first, so that they end their executors and drivers before the master goes.
    for (int i = processes.size() - 1; i >= 0; i--) {
      ServerProcesses.stop(processes.get(i));
    }
  }

  private static Path assemble(Path sparkHome, List<Path> jars) throws IOException {
    Path jarFolder = Files.createDirectories(sparkHome.resolve("jars"));
    Set<String> names = new HashSet<>();
    for (Path jar : jars) {
      String name = jar.getFileName().toString();
      if (!names.add(name)) {
        continue;
      }
      Files.createSymbolicLink(jarFolder.resolve(name), jar.toAbsolutePath());
    }
    // Spark's launcher takes a folder with a RELEASE file for a distribution, whose jars are in jars/.
    Files.writeString(sparkHome.resolve("RELEASE"), "Spark assembled from Maven jars for a local standalone cluster\n");
    return sparkHome;
  }

  private void startDaemon(String name, List<String> mainAndArguments) throws IOException {
    List<String> command = java(List.of("-Xmx512m", "-XX:+UseSerialGC"));
    command.addAll(mainAndArguments);
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve(name + ".log").toFile()));
    environment(builder.environment());
    Process process = builder.start();
    processes.add(process);
    Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
  }

  private List<String> java(List<String> memory) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmFlags);
    command.addAll(memory);
    command.add("-cp");
    command.add(sparkHome.resolve("jars") + "/*");
    return command;
  }

  private void environment(Map<String, String> environment) {
    environment.keySet().removeIf(name -> name.startsWith("SPARK_"));
    environment.put("SPARK_HOME", sparkHome.toString());
    environment.put("SPARK_SCALA_VERSION", "2.13");
    // The drivers and executors the workers start bind and advertise loopback, as every server of the tests does
    // (this machine's name resolves to an address the cluster's JVMs would otherwise advertise and not listen on).
    environment.put("SPARK_LOCAL_IP", "127.0.0.1");
  }

  private void awaitWorkers(int workers) {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      for (Process process : processes) {
        if (!process.isAlive()) {
          throw new IllegalStateException("A process of the Spark cluster exited (" + process.exitValue() + "):\n"
              + logTails());
        }
      }
      Matcher alive = ALIVE_WORKERS.matcher(masterState());
      if (alive.find() && Integer.parseInt(alive.group(1)) >= workers) {
        return;
      }
      ServerProcesses.pause(300, "the Spark cluster");
    }
    throw new IllegalStateException("The Spark cluster's " + workers + " workers did not register within "
        + START_TIMEOUT.toSeconds() + " s:\n" + logTails());
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress("127.0.0.1", 0));
      return socket.getLocalPort();
    }
  }
}
