package io.tributary.benchmarks;

import io.tributary.common.cli.Arguments;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.localstack.LocalIcebergRestCatalog;
import io.tributary.localstack.LocalPostgres;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.SparkSession;

/**
 * Commit latency on each catalog a deployment may use, in one run and one session: the Hadoop catalog on the local
 * disk (the ceiling: a rename on the same machine), Iceberg's JDBC catalog on PostgreSQL, and Iceberg's REST catalog
 * server (its own JVM, its tables in the same PostgreSQL). Each commit is a one-row {@code INSERT INTO} an Iceberg
 * table, as a micro-batch of a quiet stream makes; measured are Iceberg's own commit time (its commit report) and
 * the statement's wall time. The catalogs take turns, {@code --commits / 10} rounds of 10 commits each, after 10
 * unmeasured commits each as warm-up.
 */
public final class CatalogBenchmark {
  private static final String CLASS_NAME = CommitTimes.class.getName();
  private static final int ROUND = 10;

  private record Catalog(String label, String name) {}

  /** What one catalog's measured commits gave: Iceberg's report of each, and each statement's wall time. */
  private record Figures(List<CommitTimes.Sample> commits, List<Long> statementNanos) {
    List<Long> commitNanos() {
      return commits.stream().map(CommitTimes.Sample::nanos).toList();
    }

    long retries() {
      return commits.stream().mapToLong(sample -> sample.attempts() - 1).sum();
    }
  }

  public static void main(String[] args) throws Exception {
    Arguments options = BenchmarkWorkspace.arguments("bench-catalogs", args, Set.of("commits"), """
        Commit latency on the Hadoop catalog (local disk), the JDBC catalog (PostgreSQL) and the REST catalog server
        (on the same PostgreSQL), one-row INSERTs taking turns; Iceberg's commit time and the statement's wall time.
          --commits N   measured commits per catalog, a multiple of 10 (default 200)
        """);
    int commits = (int) BenchmarkWorkspace.positive(options, "commits", "200");
    if (commits % ROUND != 0) {
      System.err.println("'bench-catalogs': --commits must be a multiple of " + ROUND + ", got " + commits);
      System.exit(2);
    }
    String reporter = "metrics-reporter-impl = \"" + CLASS_NAME + "\"";
    try (BenchmarkWorkspace workspace = BenchmarkWorkspace.open("catalogs", "catalog { name = bench_hadoop,"
        + " properties { " + reporter + " } }");
        LocalPostgres postgres = LocalPostgres.start();
        LocalIcebergRestCatalog rest = LocalIcebergRestCatalog.start(workspace.folder().resolve("rest"),
            postgres.jdbcUrl("postgres"), "postgres", workspace.folder().resolve("rest-warehouse"))) {
      SparkSession spark = workspace.spark();
      List<Catalog> catalogs = List.of(new Catalog("Hadoop, local disk", "bench_hadoop"),
          register(workspace, "bench_jdbc", "type = jdbc, warehouse = \"" + workspace.folder().resolve("jdbc-warehouse")
              + "\", properties { uri = \"" + postgres.jdbcUrl("postgres")
              + "\", \"jdbc.user\" = postgres, " + reporter + " }", "JDBC, PostgreSQL 15"),
          register(workspace, "bench_rest", "type = rest, properties { uri = \"" + rest.uri() + "\", " + reporter
              + " }", "REST server, on PostgreSQL 15"));
      Map<Catalog, Figures> figures = new LinkedHashMap<>();
      for (Catalog catalog : catalogs) {
        spark.sql("CREATE NAMESPACE IF NOT EXISTS " + catalog.name() + ".bench");
        spark.sql("CREATE TABLE " + catalog.name() + ".bench.commits (id BIGINT, note STRING) USING iceberg");
        insert(spark, catalog, ROUND, 0);
        CommitTimes.take(catalog.name() + ".bench.commits");
        figures.put(catalog, new Figures(new ArrayList<>(), new ArrayList<>()));
      }
      for (int round = 0; round < commits / ROUND; round++) {
        for (Catalog catalog : catalogs) {
          Figures so = figures.get(catalog);
          so.statementNanos().addAll(insert(spark, catalog, ROUND, (round + 1) * ROUND));
          so.commits().addAll(CommitTimes.take(catalog.name() + ".bench.commits"));
        }
        System.out.printf(Locale.ROOT, "round %d of %d done%n", round + 1, commits / ROUND);
      }
      for (Catalog catalog : catalogs) {
        long rows = spark.table(catalog.name() + ".bench.commits").count();
        if (rows != (long) (commits + ROUND)) {
          throw new IllegalStateException(catalog.label() + ": " + rows + " rows, expected " + (commits + ROUND));
        }
      }
      workspace.report(report(workspace, commits, figures));
    }
    System.exit(0);
  }

  private static Catalog register(BenchmarkWorkspace workspace, String name, String settings, String label) {
    LakehouseSession.registerCatalog(workspace.spark(),
        workspace.config("catalog { name = " + name + ", " + settings + " }").catalog());
    return new Catalog(label, name);
  }

  /** {@code count} one-row inserts, one commit each; the wall time of each statement. */
  private static List<Long> insert(SparkSession spark, Catalog catalog, int count, int firstId) {
    List<Long> nanos = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      long start = System.nanoTime();
      spark.sql("INSERT INTO " + catalog.name() + ".bench.commits VALUES (" + (firstId + i) + ", 'commit')");
      nanos.add(System.nanoTime() - start);
    }
    return nanos;
  }

  private static String report(BenchmarkWorkspace workspace, int commits, Map<Catalog, Figures> figures) {
    StringBuilder text = new StringBuilder("# Commit latency by catalog\n\n")
        .append("Command: `bin/tributary bench-catalogs --commits ").append(commits).append("`; ")
        .append(commits).append(" measured one-row INSERT commits per catalog after ").append(ROUND)
        .append(" unmeasured, catalogs taking turns in rounds of ").append(ROUND)
        .append("; one Spark session (local[*]), Java ").append(System.getProperty("java.version"))
        .append(", ").append(Runtime.getRuntime().availableProcessors()).append(" cores. PostgreSQL and the REST")
        .append(" server run on the same machine (no network between them and Spark). Spark settings: ")
        .append(workspace.sparkSettings()).append(".\n\n")
        .append("| catalog | commit p50 (ms) | commit p95 (ms) | commit mean (ms) | p50 vs Hadoop | INSERT p50 (ms)"
            + " | INSERT p95 (ms) | retried commits |\n|---|---|---|---|---|---|---|---|\n");
    double ceiling = percentile(figures.values().iterator().next().commitNanos(), 50);
    figures.forEach((catalog, figure) -> {
      double p50 = percentile(figure.commitNanos(), 50);
      text.append(String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.2fx | %.1f | %.1f | %d |%n",
          catalog.label(), p50 / 1e6, percentile(figure.commitNanos(), 95) / 1e6,
          figure.commitNanos().stream().mapToLong(Long::longValue).average().orElse(0) / 1e6, p50 / ceiling,
          percentile(figure.statementNanos(), 50) / 1e6, percentile(figure.statementNanos(), 95) / 1e6,
          figure.retries()));
    });
    return text.toString();
  }

  private static double percentile(List<Long> values, int percent) {
    List<Long> sorted = values.stream().sorted().toList();
    if (sorted.isEmpty()) {
      return Double.NaN;
    }
    int index = (int) Math.ceil(percent / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, index));
  }
}
