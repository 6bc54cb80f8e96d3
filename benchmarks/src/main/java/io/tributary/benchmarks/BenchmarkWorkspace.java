package io.tributary.benchmarks;

import com.typesafe.config.ConfigFactory;
import io.tributary.common.cli.Arguments;
import io.tributary.common.cli.HelpRequested;
import io.tributary.common.cli.UsageException;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.SparkProgress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;

/**
 * One benchmark run's scratch lakehouse ({@code var/benchmarks/<name>-run-<time>}, deleted at the end), its config
 * and session, and its report ({@code var/benchmarks/<name>-<time>.md}, kept for the README to quote).
 */
final class BenchmarkWorkspace implements AutoCloseable {
  private final String name;
  private final String stamp;
  private final Path folder;
  private final String base;
  private final TributaryConfig config;
  private final SparkSession spark;
  /** Progress of the benchmark's own Spark work (writing its test data, its ceilings) every 10 s. */
  private SparkProgress progress;

  private BenchmarkWorkspace(String name, String stamp, Path folder, String base, TributaryConfig config,
      SparkSession spark) {
    this.name = name;
    this.stamp = stamp;
    this.folder = folder;
    this.base = base;
    this.config = config;
    this.spark = spark;
  }

  /** A fresh warehouse and checkpoint folder, with {@code hocon} (inside {@code tributary { }}) on top. */
  static BenchmarkWorkspace open(String name, String hocon) throws IOException {
    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path folder = Path.of("var", "benchmarks", name + "-run-" + stamp).toAbsolutePath();
    Files.createDirectories(folder);
    TributaryConfig config = configIn(folder, hocon);
    SparkSession spark = LakehouseSession.builder(config, "bench-" + name).config("spark.ui.enabled", "false")
        .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    LakehouseSession.registerCatalog(spark, config.catalog());
    BenchmarkWorkspace workspace = new BenchmarkWorkspace(name, stamp, folder, hocon, config, spark);
    workspace.progress = SparkProgress.inBackground(spark, "  ... bench-" + name, System.out::println);
    return workspace;
  }

  private static TributaryConfig configIn(Path folder, String hocon) {
    return TributaryConfig.from(ConfigFactory.parseString("tributary {\n"
        + "  catalog.warehouse = \"" + folder.resolve("warehouse") + "\"\n"
        + "  kafka.bootstrap-servers = \"127.0.0.1:1\"\n"
        + "  checkpoint-location = \"" + folder.resolve("checkpoints") + "\"\n"
        + hocon + "\n}\n").withFallback(shippedSparkSettings()));
  }

  /**
   * The Spark settings {@code conf/application.conf} ships (the run's working folder is the project's), so that a
   * benchmark measures what a user of {@code bin/tributary} gets rather than Spark's own defaults.
   */
  private static com.typesafe.config.Config shippedSparkSettings() {
    Path shipped = Path.of("conf", "application.conf");
    if (!Files.exists(shipped)) {
      throw new IllegalStateException("benchmarks run from the project folder (bin/tributary does): " + shipped
          + " is not in " + Path.of("").toAbsolutePath());
    }
    com.typesafe.config.Config file = ConfigFactory.parseFile(shipped.toFile()).resolve();
    return file.hasPath("tributary.spark") ? file.getConfig("tributary.spark").atPath("tributary.spark")
        : ConfigFactory.empty();
  }

  /** The run's Spark settings beyond Spark's defaults, for the report: {@code key = value, ...}. */
  String sparkSettings() {
    return config.spark().isEmpty() ? "none beyond Spark's defaults" : String.join(", ", config.spark().entrySet()
        .stream().map(entry -> entry.getKey() + " = " + entry.getValue()).sorted().toList());
  }

  /** The workspace's config with {@code hocon} (inside {@code tributary { }}) added on top. */
  TributaryConfig config(String hocon) {
    return configIn(folder, base + "\n" + hocon);
  }

  /**
   * The options of a benchmark's command line. {@code --help} prints {@code usage} and ends the program with exit
   * code 0; a mistake ends it with its message and exit code 2.
   *
   * @param usage the help text: what the benchmark measures, then one line per option with its default
   */
  static Arguments arguments(String command, String[] args, Set<String> valueOptions, String usage) {
    try {
      return Arguments.parse(command, Arrays.asList(args), valueOptions, Set.of());
    } catch (HelpRequested help) {
      System.out.println("Usage: bin/tributary " + command + " [options]\n" + usage.stripTrailing());
      System.exit(0);
      throw new IllegalStateException("unreachable");
    } catch (UsageException e) {
      return usageError(e.getMessage());
    }
  }

  /** A comma-separated list of positive whole numbers ({@code 50,200}). */
  static List<Long> positives(Arguments options, String option, String fallback) {
    List<Long> values = new ArrayList<>();
    for (String text : options.value(option).orElse(fallback).split(",")) {
      values.add(positive(options.command(), option, text.trim()));
    }
    return values;
  }

  /**
   * The values of a list option ({@code json,avro}) in the order given, each once; an unknown value ends the run
   * with exit code 2 and one line naming the option and its values.
   */
  static <E extends Enum<E>> List<E> values(Arguments options, String option, String fallback, Class<E> type) {
    String text = options.value(option).orElse(fallback);
    java.util.LinkedHashSet<E> values = new java.util.LinkedHashSet<>();
    for (String name : text.split(",")) {
      try {
        values.add(Enum.valueOf(type, name.strip().toUpperCase(java.util.Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        List<String> known = java.util.Arrays.stream(type.getEnumConstants())
            .map(io.tributary.common.config.ConfigNames::of).toList();
        return usageError("'" + options.command() + "': --" + option + " takes " + String.join(", ", known) + " or "
            + String.join(",", known) + "; got '" + text + "'");
      }
    }
    return List.copyOf(values);
  }

  /** A positive whole-number option ({@code 1,000,000} and {@code 1_000_000} read too). */
  static long positive(Arguments options, String option, String fallback) {
    return positive(options.command(), option, options.value(option).orElse(fallback));
  }

  private static long positive(String command, String option, String text) {
    try {
      long value = Long.parseLong(text.replace("_", "").replace(",", ""));
      if (value > 0) {
        return value;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    return usageError("'" + command + "': --" + option + " must be a positive whole number, got '" + text + "'");
  }

  private static <T> T usageError(String message) {
    System.err.println(message);
    System.exit(2);
    throw new IllegalStateException("unreachable");
  }

  TributaryConfig config() {
    return config;
  }

  SparkSession spark() {
    return spark;
  }

  /** The run's scratch folder (deleted at the end, see {@link #keepLogs()}). */
  Path folder() {
    return folder;
  }

  /** Copies the run's process logs ({@code *.log} in its folder, the broker's) next to the report. */
  void keepLogs() throws IOException {
    Path kept = folder.getParent().resolve(name + "-" + stamp + "-logs");
    Files.createDirectories(kept);
    try (Stream<Path> files = Files.list(folder)) {
      for (Path log : files.filter(path -> path.toString().endsWith(".log")).toList()) {
        Files.copy(log, kept.resolve(log.getFileName()));
      }
    }
    Path broker = folder.resolve("kafka").resolve("broker.log");
    if (Files.exists(broker)) {
      Files.copy(broker, kept.resolve("kafka-broker.log"));
    }
    System.out.println("Logs kept in " + kept);
  }

  /** A file kept next to the run's report ({@code var/benchmarks/<name>-<time><suffix>}), e.g. a chart. */
  Path reportFile(String suffix) {
    return folder.getParent().resolve(name + "-" + stamp + suffix);
  }

  /** Prints the report and keeps it next to the others. */
  void report(String text) throws IOException {
    Path file = reportFile(".md");
    Files.writeString(file, text);
    System.out.println(text);
    System.out.println("Report written to " + file);
  }

  @Override
  public void close() throws IOException {
    progress.close();
    try (Stream<Path> files = Files.walk(folder)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    }
  }
}
