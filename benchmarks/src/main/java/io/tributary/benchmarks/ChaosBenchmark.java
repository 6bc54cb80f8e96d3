package io.tributary.benchmarks;

import io.tributary.common.cli.Arguments;
import io.tributary.common.lakehouse.CommitWindowPause;
import io.tributary.localstack.GeneratedRecord;
import io.tributary.localstack.GeneratorOptions;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.ShopEventGenerator;
import io.tributary.localstack.ShopProducer;
import io.tributary.localstack.Topics;
import io.tributary.silver.ShopReference;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Chaos: the shop's events produced at a steady rate while continuous bronze, continuous silver and a maintenance
 * loop run as the processes {@code bin/tributary} starts; meanwhile SIGKILLs, each at a random moment or in the
 * window between a batch's table commit and Spark's checkpoint commit ({@link CommitWindowPause}), and broker
 * restarts. Then each job catches up once and the invariants are checked on the data: every Kafka offset in bronze
 * exactly once, every silver table equal to a replay of the produced events, quarantine holding each malformed record
 * once per entity. Exit 0 when they all hold.
 *
 * <p>Run with {@code bin/tributary bench-chaos [--kills N] [--broker-restarts N] [--rate R] [--seed S]}.
 */
public final class ChaosBenchmark {
  /** What a kill aims at. */
  enum Moment { RANDOM, COMMIT_WINDOW }

  private static final Duration BROKER_DOWN = Duration.ofSeconds(20);
  private static final Duration WINDOW_WAIT = Duration.ofMinutes(4);

  private final Path folder;
  private final Path configFile;
  private final String bootstrapServers;
  private final Random random;
  private final Map<String, Map<Moment, Integer>> kills = new TreeMap<>();
  private final List<String> events = new ArrayList<>();
  private final Instant started = Instant.now();
  private int windowsMissed;
  private int exitedByThemselves;

  private ChaosBenchmark(Path folder, Path configFile, String bootstrapServers, long seed) {
    this.folder = folder;
    this.configFile = configFile;
    this.bootstrapServers = bootstrapServers;
    this.random = new Random(seed);
  }

  public static void main(String[] args) throws Exception {
    Arguments options = BenchmarkWorkspace.arguments("bench-chaos", args,
        Set.of("kills", "broker-restarts", "rate", "seed"), """
        SIGKILLs of the bronze and silver processes and broker restarts under load, then the invariants: every
        record once in bronze, silver equal to the reference.
          --kills N             process kills (default 20)
          --broker-restarts N   broker restarts (default 2)
          --rate N              records per second (default 100)
          --seed N              random seed of the kill times (default 7)
        """);
    int killCount = (int) BenchmarkWorkspace.positive(options, "kills", "20");
    int brokerRestarts = (int) BenchmarkWorkspace.positive(options, "broker-restarts", "2");
    long rate = BenchmarkWorkspace.positive(options, "rate", "100");
    long seed = BenchmarkWorkspace.positive(options, "seed", "7");
    boolean held;
    try (BenchmarkWorkspace workspace = BenchmarkWorkspace.open("chaos", "catalog.name = lake")) {
      Path folder = workspace.folder();
      LocalKafkaBroker broker = LocalKafkaBroker.start(folder.resolve("kafka"), Map.of("log.retention.ms", "-1"));
      try {
        Path config = writeConfig(folder, broker.bootstrapServers());
        ChaosBenchmark chaos = new ChaosBenchmark(folder, config, broker.bootstrapServers(), seed);
        Result result = chaos.run(workspace.spark(), broker, killCount, brokerRestarts, rate, seed);
        held = result.held();
        workspace.report(result.report());
        workspace.keepLogs();
      } finally {
        LocalKafkaBroker.find(folder.resolve("kafka")).ifPresent(LocalKafkaBroker::stop);
      }
    }
    System.exit(held ? 0 : 1);
  }

  /** The demo's config on this run's broker and folders, with small batches so that kills land between commits. */
  private static Path writeConfig(Path folder, String bootstrapServers) throws IOException {
    Path repo = Path.of("").toAbsolutePath();
    String text = "include file(\"" + repo.resolve("conf/application.conf") + "\")\n"
        + "tributary {\n"
        + "  catalog.warehouse = \"" + folder.resolve("warehouse") + "\"\n"
        + "  checkpoint-location = \"" + folder.resolve("checkpoints") + "\"\n"
        + "  kafka.bootstrap-servers = \"" + bootstrapServers + "\"\n"
        + "  bronze.defaults { trigger = \"1 second\", max-offsets-per-trigger = 2000 }\n"
        + "  silver.defaults { trigger = \"2 seconds\", max-rows-per-trigger = 2000 }\n"
        + "  maintenance.defaults { min-input-files = 2, snapshot-retention = 1 ms, retain-last = 3, quiet-for = 0s }\n"
        + "}\n";
    return Files.writeString(folder.resolve("chaos.conf"), text);
  }

  record Result(String report, boolean held) {}

  private Result run(SparkSession spark, LocalKafkaBroker broker, int killCount, int brokerRestarts, long rate,
      long seed) throws Exception {
    // About a minute per kill on 2 cores (a JVM start, then a run before the kill): the events cover that span.
    long seconds = killCount * 60L;
    List<GeneratedRecord> generated = new ArrayList<>();
    ShopEventGenerator.records(new GeneratorOptions(rate * seconds * 2 / 3, rate * seconds / 3, 500, 0.2, 0.02,
        0.005, true, Instant.now().minus(Duration.ofHours(6)), Duration.ofHours(6), seed))
        .forEachRemaining(generated::add);
    Map<String, Object> client = Map.of("bootstrap.servers", broker.bootstrapServers());
    Topics.create(client, List.of(GeneratorOptions.ORDERS_TOPIC, GeneratorOptions.CUSTOMERS_TOPIC), 2, Map.of());
    log("producing %,d records at %d/s; %d kills, %d broker restarts", generated.size(), rate, killCount,
        brokerRestarts);
    Map<String, Object> patient = Map.of("bootstrap.servers", broker.bootstrapServers(),
        "delivery.timeout.ms", 600_000, "max.block.ms", 600_000, "request.timeout.ms", 30_000);
    CompletableFuture<ShopProducer.Summary> producing = CompletableFuture.supplyAsync(
        () -> ShopProducer.send(patient, generated.iterator(), rate));

    // Bronze first (kills 0, 2, 4, ...), silver (kills 1, 3, 5, ...) waits for its tables.
    JobProcess bronze = start("bronze", moment(0, killCount));
    JobProcess silver = start("silver", moment(1, killCount));
    Thread maintenance = maintenanceLoop();
    LocalKafkaBroker current = broker;
    try {
      for (int kill = 0; kill < killCount; kill++) {
        if (brokerRestarts > 0 && kill > 0 && kill % Math.max(1, killCount / (brokerRestarts + 1)) == 0
            && countEvents("broker restarted") < brokerRestarts) {
          current = restart(current);
        }
        boolean onBronze = kill % 2 == 0;
        JobProcess target = onBronze ? bronze : silver;
        Moment moment = target.moment();
        boolean ready = false;
        for (int attempt = 0; attempt < 3 && !ready; attempt++) {
          ready = moment == Moment.COMMIT_WINDOW ? target.awaitCommitWindow(WINDOW_WAIT)
              : target.awaitStreaming(WINDOW_WAIT);
          if (!ready && target.hasExited()) {
            // A job that cannot reach Kafka when it starts fails within a minute, by design (a broker restart
            // does that): restarted, as the scheduler or supervisor running it would.
            exitedByThemselves++;
            log("%s exited by itself (exit %d); started again", target.command(), target.exitCode());
            target = start(target.command(), moment);
          } else if (!ready) {
            break;
          }
        }
        if (!ready) {
          log("%s was not %s within %d s", target.command(),
              moment == Moment.COMMIT_WINDOW ? "in a commit window" : "streaming", WINDOW_WAIT.toSeconds());
          if (moment == Moment.COMMIT_WINDOW) {
            windowsMissed++;
            moment = Moment.RANDOM;
          }
        }
        if (moment == Moment.RANDOM) {
          Thread.sleep(random.nextInt(30_000));
        }
        target.kill();
        countKill(target.command(), moment);
        log("SIGKILL %d: %s, %s", kill + 1, target.command(), moment);
        JobProcess restarted = start(target.command(), moment(kill + 2, killCount));
        if (onBronze) {
          bronze = restarted;
        } else {
          silver = restarted;
        }
      }
      while (countEvents("broker restarted") < brokerRestarts) {
        current = restart(current);
      }
      log("%s", producing.get(30, TimeUnit.MINUTES).toString().strip());
    } finally {
      maintenance.interrupt();
      maintenance.join(TimeUnit.MINUTES.toMillis(5));
      bronze.kill();
      silver.kill();
    }
    // What is left, once each: then the invariants.
    StringBuilder catchUp = new StringBuilder();
    for (String command : List.of("bronze", "silver")) {
      int exit = start(command, Moment.RANDOM, "--once").awaitExit(Duration.ofMinutes(20));
      log("%s --once to catch up: exit %d", command, exit);
      if (exit != 0) {
        catchUp.append(command).append(" --once exited ").append(exit).append(" (see its log)\n");
      }
    }
    return check(spark, current, generated, catchUp.toString());
  }

  private JobProcess start(String command, Moment moment, String... extraArgs) throws IOException {
    return JobProcess.start(folder, configFile, bootstrapServers, command, moment, extraArgs);
  }

  /**
   * Kill {@code kill} goes to bronze when even, to silver when odd; every other kill of each job aims at the commit
   * window, so the process started before it holds the window open.
   */
  private static Moment moment(int kill, int killCount) {
    return kill < killCount && (kill / 2) % 2 == 1 ? Moment.COMMIT_WINDOW : Moment.RANDOM;
  }

  private synchronized void countKill(String command, Moment moment) {
    kills.computeIfAbsent(command, key -> new EnumMap<>(Moment.class)).merge(moment, 1, Integer::sum);
  }

  private LocalKafkaBroker restart(LocalKafkaBroker broker) throws InterruptedException {
    broker.stop();
    log("broker stopped");
    Thread.sleep(BROKER_DOWN.toMillis());
    LocalKafkaBroker started = LocalKafkaBroker.start(broker.home(), Map.of("log.retention.ms", "-1"));
    log("broker restarted after %d s down", BROKER_DOWN.toSeconds());
    return started;
  }

  /** {@code maintain} every minute (compaction, expiry, orphan cleanup next to the streams), killed now and then. */
  private Thread maintenanceLoop() {
    Thread loop = new Thread(() -> {
      int round = 0;
      JobProcess job = null;
      try {
        while (true) {
          job = start("maintain", Moment.RANDOM);
          if (++round % 3 == 0) {
            Thread.sleep(20_000 + random.nextInt(20_000));
            job.kill();
            countKill("maintain", Moment.RANDOM);
            log("SIGKILL: maintain, RANDOM (besides the stream kills)");
          } else {
            log("maintain: exit %d", job.awaitExit(Duration.ofMinutes(10)));
          }
          Thread.sleep(60_000);
        }
      } catch (InterruptedException stopped) {
        // the run is over
      } catch (IOException e) {
        log("maintenance loop ended: %s", e.getMessage());
      } finally {
        if (job != null) {
          job.killQuietly();
        }
      }
    }, "chaos-maintenance");
    loop.start();
    return loop;
  }

  private Result check(SparkSession spark, LocalKafkaBroker broker, List<GeneratedRecord> generated,
      String catchUpFailures) throws Exception {
    StringBuilder failures = new StringBuilder(catchUpFailures);
    StringBuilder bronzeLines = new StringBuilder();
    Map<String, Object> client = Map.of("bootstrap.servers", broker.bootstrapServers());
    for (String topic : List.of(GeneratorOptions.CUSTOMERS_TOPIC, GeneratorOptions.ORDERS_TOPIC)) {
      String table = "lake.bronze." + topic.substring("shop.".length());
      long inKafka = recordsIn(client, topic);
      Row row = spark.sql("SELECT count(*), count(DISTINCT `partition`, `offset`) FROM " + table).first();
      long rows = row.getLong(0);
      long distinct = row.getLong(1);
      bronzeLines.append(String.format("| %s | %,d | %,d | %,d | %,d |%n", table, inKafka, rows, rows - distinct,
          inKafka - distinct));
      if (rows != inKafka || distinct != inKafka) {
        failures.append(String.format("%s: %,d records in Kafka, %,d rows, %,d distinct offsets%n", table, inKafka,
            rows, distinct));
      }
    }
    Map<String, Boolean> silver = new TreeMap<>();
    silver.put("silver.customers = replay of the changes",
        ShopReference.liveCustomers(spark, "lake.silver.customers").equals(ShopReference.customers(generated)));
    silver.put("silver.customer_history = every version, in order",
        ShopReference.customerHistory(spark, "lake.silver.customer_history")
            .equals(ShopReference.customerHistory(generated)));
    silver.put("silver.orders = latest event per order",
        ShopReference.orders(spark, "lake.silver.orders").equals(ShopReference.orders(generated)));
    Map<String, Long> quarantined = new TreeMap<>();
    for (Row row : spark.sql("SELECT entity, count(*) FROM lake.silver.quarantine GROUP BY entity").collectAsList()) {
      quarantined.put(row.getString(0), row.getLong(1));
    }
    long badCustomers = malformed(generated, GeneratorOptions.CUSTOMERS_TOPIC);
    long badOrders = malformed(generated, GeneratorOptions.ORDERS_TOPIC);
    silver.put("quarantine = each malformed record once per entity", quarantined.equals(Map.of(
        "customers", badCustomers, "customer_history", badCustomers, "orders", badOrders)));
    silver.forEach((invariant, holds) -> {
      if (!holds) {
        failures.append(invariant).append(": does not hold\n");
      }
    });
    String quarantine = String.format("Quarantine rows per entity: %s; malformed records produced: customers %,d,"
        + " orders %,d.", quarantined, badCustomers, badOrders);
    return new Result(report(bronzeLines.toString(), silver, quarantine, failures.toString()), failures.isEmpty());
  }

  private static long malformed(List<GeneratedRecord> generated, String topic) {
    return generated.stream()
        .filter(record -> record.topic().equals(topic) && record.kind() == GeneratedRecord.Kind.MALFORMED).count();
  }

  private static long recordsIn(Map<String, Object> client, String topic) {
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(client, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(60)).stream()
          .map(info -> new TopicPartition(topic, info.partition())).toList();
      Map<TopicPartition, Long> start = consumer.beginningOffsets(partitions, Duration.ofSeconds(60));
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(60));
      return partitions.stream().mapToLong(partition -> end.get(partition) - start.get(partition)).sum();
    }
  }

  private String report(String bronzeLines, Map<String, Boolean> silver, String quarantine, String failures) {
    StringBuilder text = new StringBuilder();
    text.append("# Chaos: kills and broker restarts under load, ").append(LocalDateTime.now().withNano(0))
        .append("\n\n")
        .append(String.format("Ran %d min. Kills by job and moment: %s (commit-window kills that found no window in"
            + " %d s and were made at a random moment instead: %d). Jobs that exited by themselves and were started"
            + " again (a start while the broker was down): %d.%n%n", Duration.between(started, Instant.now())
            .toMinutes(), kills, WINDOW_WAIT.toSeconds(), windowsMissed, exitedByThemselves))
        .append(String.format("Replays of a batch its table already held, after a kill (log lines): bronze %d,"
            + " silver %d.%n%n", countIn("bronze.log", "(a replay); nothing written"),
            countIn("silver.log", "skipping its replay")))
        .append("| bronze table | records in Kafka | rows | duplicates | missing |\n|---|---:|---:|---:|---:|\n")
        .append(bronzeLines).append('\n')
        .append("| silver invariant | holds |\n|---|---|\n");
    silver.forEach((invariant, holds) -> text.append("| ").append(invariant).append(" | ")
        .append(holds ? "yes" : "**no**").append(" |\n"));
    text.append('\n').append(quarantine).append("\n\n").append(failures.isEmpty() ? "Every invariant holds.\n" : "FAILED:\n" + failures)
        .append("\nEvents:\n\n```\n").append(String.join("\n", events)).append("\n```\n");
    return text.toString();
  }

  private long countIn(String log, String text) {
    try (var lines = Files.lines(folder.resolve(log))) {
      return lines.filter(line -> line.contains(text)).count();
    } catch (IOException e) {
      return 0;
    }
  }

  private synchronized long countEvents(String text) {
    return events.stream().filter(event -> event.contains(text)).count();
  }

  private synchronized void log(String format, Object... args) {
    String line = String.format("%4d s  ", Duration.between(started, Instant.now()).toSeconds())
        + String.format(format, args);
    events.add(line);
    System.out.println(line);
  }
}
