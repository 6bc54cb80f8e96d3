package io.tributary.benchmarks;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigRenderOptions;
import io.tributary.common.cli.Arguments;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.localstack.GeneratedRecord;
import io.tributary.localstack.GeneratorOptions;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.LocalSparkCluster;
import io.tributary.localstack.ShopEventGenerator;
import io.tributary.localstack.ShopProducer;
import io.tributary.localstack.SparkDistribution;
import io.tributary.localstack.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Bronze and silver throughput of the shaded jar under {@code spark-submit} on a Spark standalone cluster (a master
 * and two workers, each a JVM of its own, executors in JVMs the workers start; client deploy mode) next to the same
 * jar and Spark with {@code --master local[*]}, on the same machine and the same events. Each layer runs
 * {@code --once} as a scheduler runs it, cold JVMs included, then once more with nothing new: the second run is the
 * fixed cost (JVMs, Spark, executors, tables, checkpoints) that the net rate leaves out. The tables of both runs are
 * checked: bronze holds every produced record, silver is the same in both.
 */
public final class ClusterBenchmark {
  private static final List<String> SILVER_TABLES = List.of("silver.orders", "silver.customers",
      "silver.customer_history");
  /** Columns that record when a row was written, which two runs never share. */
  private static final List<String> RUN_COLUMNS = List.of("ingested_at", "_updated_at", "quarantined_at");

  /** How one side runs: a name, spark-submit's master, its resources. */
  private record Mode(String label, String catalog, String master, List<String> resources) {}

  /** One spark-submit: the command and its wall time. */
  private record Run(String command, double seconds) {}

  public static void main(String[] args) throws Exception {
    Arguments options = BenchmarkWorkspace.arguments("bench-cluster", args, Set.of("orders"), """
        Bronze and silver throughput of the shaded jar under spark-submit on a Spark standalone cluster (a master and
        two workers of one core each, in JVMs of their own, client deploy mode) next to --master local[*], on the
        same machine and the same events; each layer --once, then once more with nothing new (the fixed cost).
          --orders N   order events (default 300,000); customer changes are a fifth of that, customers a twentieth
        """);
    long orders = BenchmarkWorkspace.positive(options, "orders", "300000");
    Path launcher = Path.of("launcher", "target").toAbsolutePath();
    Path jar = SparkDistribution.applicationJar(launcher);
    List<String> jvmFlags = Arrays.stream(Files.readString(launcher.resolve("jvm-flags.txt")).trim().split("\\s+"))
        .filter(flag -> !flag.isEmpty()).toList();

    try (BenchmarkWorkspace workspace = BenchmarkWorkspace.open("cluster", "")) {
      Path folder = workspace.folder();
      LocalKafkaBroker broker = LocalKafkaBroker.start(folder.resolve("kafka"), Map.of());
      try (LocalSparkCluster cluster = LocalSparkCluster.start(folder.resolve("cluster"),
          SparkDistribution.jars(launcher), jvmFlags, new LocalSparkCluster.Shape(2, 1, "2g"))) {
        Map<String, Long> produced = produce(broker, orders);
        List<Mode> modes = List.of(
            new Mode("local[*]", "bench_local", "local[*]", List.of("--driver-memory", "3g")),
            new Mode("standalone, 2 workers", "bench_cluster", cluster.masterUrl(), List.of("--deploy-mode",
                "client", "--driver-memory", "2g", "--conf", "spark.executor.cores=1", "--conf", "spark.cores.max=2",
                "--conf", "spark.executor.memory=1500m")));
        Map<Mode, List<Run>> runs = new java.util.LinkedHashMap<>();
        for (Mode mode : modes) {
          Path config = lakehouse(folder, mode, broker.bootstrapServers());
          List<Run> timed = new ArrayList<>();
          for (List<String> command : List.of(List.of("bronze", "--once"), List.of("bronze", "--once"),
              List.of("silver", "--once"), List.of("silver", "--once"))) {
            timed.add(submit(cluster, mode, jar, config, command, folder));
          }
          runs.put(mode, timed);
        }
        check(workspace, folder, modes, produced);
        workspace.report(report(orders, produced, runs, workspace));
      } finally {
        broker.stop();
      }
    }
    System.exit(0);
  }

  /** The demo's shop events at {@code orders} scale, on 4 partitions per topic; the records sent per topic. */
  private static Map<String, Long> produce(LocalKafkaBroker broker, long orders) throws Exception {
    GeneratorOptions events = new GeneratorOptions(orders, orders / 5, (int) Math.max(50, orders / 20), 0.2, 0.01,
        0.0, false, Instant.now().minus(Duration.ofDays(3)), Duration.ofDays(3), 42);
    Map<String, Object> client = Map.of("bootstrap.servers", broker.bootstrapServers());
    Topics.create(client, List.of(GeneratorOptions.ORDERS_TOPIC, GeneratorOptions.CUSTOMERS_TOPIC), 4, Map.of());
    System.out.println("Producing " + String.format(Locale.ROOT, "%,d", orders) + " order events and "
        + String.format(Locale.ROOT, "%,d", orders / 5) + " customer changes");
    ShopProducer.Summary sent = ShopProducer.send(client, ShopEventGenerator.records(events), 0);
    System.out.print(sent);
    Map<String, Long> perTopic = new java.util.LinkedHashMap<>();
    sent.byTopic().forEach((topic, kinds) -> perTopic.put(topic,
        kinds.values().stream().mapToLong(Long::longValue).sum()));
    return perTopic;
  }

  /** The demo's config for its orders and customers (not the inventory database), in a lakehouse of the mode's own. */
  private static Path lakehouse(Path folder, Mode mode, String bootstrapServers) throws Exception {
    Path lake = Files.createDirectories(folder.resolve(mode.catalog()));
    Config demo = ConfigFactory.parseFile(Path.of("conf", "application.conf").toFile()).resolve()
        .withoutPath("tributary.bronze.sources.inventory").withoutPath("tributary.silver.databases");
    Path config = lake.resolve("lakehouse.conf");
    Files.writeString(config, "tributary = " + demo.getObject("tributary").render(ConfigRenderOptions.concise())
        + "\ntributary.catalog.name = " + mode.catalog() + "\n"
        + "tributary.catalog.warehouse = \"" + lake.resolve("warehouse") + "\"\n"
        + "tributary.checkpoint-location = \"" + lake.resolve("checkpoints") + "\"\n"
        + "tributary.kafka.bootstrap-servers = \"" + bootstrapServers + "\"\n");
    return config;
  }

  private static Run submit(LocalSparkCluster cluster, Mode mode, Path jar, Path config, List<String> command,
      Path folder) throws Exception {
    List<String> arguments = new ArrayList<>(mode.resources());
    arguments.addAll(List.of("--class", "io.tributary.launcher.Tributary", "--conf", "spark.ui.enabled=false",
        "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.driver.bindAddress=127.0.0.1", jar.toString(),
        command.get(0), "--config", config.toString()));
    arguments.addAll(command.subList(1, command.size()));
    Path log = folder.resolve(mode.catalog() + "-" + String.join("-", command) + "-" + System.nanoTime() + ".log");
    long start = System.nanoTime();
    Process submit = cluster.submit(mode.master(), arguments, log);
    if (!submit.waitFor(30, TimeUnit.MINUTES) || submit.exitValue() != 0) {
      submit.destroyForcibly();
      throw new IllegalStateException(mode.label() + ": " + String.join(" ", command) + " failed; its log: " + log
          + "\n" + tail(log));
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.printf(Locale.ROOT, "%s: %s took %.1f s%n", mode.label(), String.join(" ", command), seconds);
    return new Run(String.join(" ", command), seconds);
  }

  private static String tail(Path log) throws java.io.IOException {
    List<String> lines = Files.readAllLines(log);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }

  /** Bronze holds every produced record in both lakehouses; silver is the same in both. */
  private static void check(BenchmarkWorkspace workspace, Path folder, List<Mode> modes, Map<String, Long> produced)
      throws Exception {
    SparkSession spark = workspace.spark();
    for (Mode mode : modes) {
      TributaryConfig config = TributaryConfig.load(folder.resolve(mode.catalog()).resolve("lakehouse.conf"));
      LakehouseSession.registerCatalog(spark, config.catalog());
      for (String topic : produced.keySet()) {
        String table = mode.catalog() + ".bronze." + topic.substring(topic.indexOf('.') + 1);
        long rows = spark.table(table).count();
        if (rows != produced.get(topic)) {
          throw new IllegalStateException(mode.label() + ": " + table + " holds " + rows + " rows, "
              + produced.get(topic) + " were produced");
        }
      }
    }
    for (String table : SILVER_TABLES) {
      Dataset<Row> local = withoutRunColumns(spark.table(modes.get(0).catalog() + "." + table));
      Dataset<Row> other = withoutRunColumns(spark.table(modes.get(1).catalog() + "." + table));
      long rows = local.count();
      long differ = local.exceptAll(other).count() + other.exceptAll(local).count();
      if (differ != 0 || rows == 0) {
        throw new IllegalStateException(table + ": " + differ + " rows differ between the runs (local has " + rows
            + ")");
      }
    }
    System.out.println("Checked: bronze holds every produced record in both runs, silver is the same in both");
  }

  private static Dataset<Row> withoutRunColumns(Dataset<Row> rows) {
    return rows.drop(RUN_COLUMNS.stream().filter(Arrays.asList(rows.columns())::contains).toArray(String[]::new));
  }

  private static String report(long orders, Map<String, Long> produced, Map<Mode, List<Run>> runs,
      BenchmarkWorkspace workspace) {
    long records = produced.values().stream().mapToLong(Long::longValue).sum();
    StringBuilder text = new StringBuilder("# Bronze and silver on a standalone cluster next to local[*]\n\n")
        .append("Command: `bin/tributary bench-cluster --orders ").append(orders).append("`. ")
        .append(String.format(Locale.ROOT, "%,d", records)).append(" Kafka records (").append(produced)
        .append("; 4 partitions each) of the demo's shop events; the demo's config for orders and customers. ")
        .append("The same shaded jar and Spark ").append(workspace.spark().version())
        .append(" under spark-submit on Java ").append(System.getProperty("java.version")).append(", ")
        .append(Runtime.getRuntime().availableProcessors()).append(" cores; local[*] with --driver-memory 3g; the ")
        .append("cluster a master and 2 workers (1 core, 2g each), client deploy mode, --driver-memory 2g, ")
        .append("spark.executor.cores=1, spark.cores.max=2, spark.executor.memory=1500m: as many task slots as ")
        .append("local[*]. Spark settings of the config: ").append(workspace.sparkSettings()).append(".\n")
        .append("Rates are records (bronze) or changes read from bronze (silver) per second of the --once run's ")
        .append("wall time (cold JVMs included: what a scheduler sees), and net of the same command run again with ")
        .append("nothing new.\n\n")
        .append("| run | bronze --once (s) | bronze, nothing new (s) | bronze records/s | net | silver --once (s) |"
            + " silver, nothing new (s) | silver changes/s | net |\n|---|---|---|---|---|---|---|---|---|\n");
    List<double[]> rates = new ArrayList<>();
    runs.forEach((mode, timed) -> {
      double bronze = timed.get(0).seconds();
      double bronzeEmpty = timed.get(1).seconds();
      double silver = timed.get(2).seconds();
      double silverEmpty = timed.get(3).seconds();
      double[] rate = {records / bronze, records / Math.max(0.001, bronze - bronzeEmpty), records / silver,
          records / Math.max(0.001, silver - silverEmpty)};
      rates.add(rate);
      text.append(String.format(Locale.ROOT, "| %s | %.1f | %.1f | %,.0f | %,.0f | %.1f | %.1f | %,.0f | %,.0f |%n",
          mode.label(), bronze, bronzeEmpty, rate[0], rate[1], silver, silverEmpty, rate[2], rate[3]));
    });
    double[] local = rates.get(0);
    double[] cluster = rates.get(1);
    text.append(String.format(Locale.ROOT, "| cluster / local | | | %.2f | %.2f | | | %.2f | %.2f |%n",
        cluster[0] / local[0], cluster[1] / local[1], cluster[2] / local[2], cluster[3] / local[3]));
    return text.toString();
  }
}
