package io.tributary.benchmarks;

import io.tributary.common.cli.Arguments;
import io.tributary.common.config.TributaryConfig;
import io.tributary.maintenance.MaintenanceJob;
import io.tributary.maintenance.Operation;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Compaction: a table of {@code files} small files (as a stream leaves it), the time of a full scan before and after
 * {@code tributary maintain --operation rewrite-data-files}, and the time compaction took. The scan reads every
 * column of every row; its result is compared before and after.
 *
 * <p>Run with {@code bin/tributary bench-maintenance [--files N] [--rows N] [--repeats N]}.
 */
public final class MaintenanceBenchmark {
  private static final String TABLE = "lake.gold.bench_events";
  private static final String SCAN = "SELECT count(*), sum(amount), sum(hash(customer, note)), max(event_time) FROM "
      + TABLE;

  private final SparkSession spark;
  private final TributaryConfig config;

  private MaintenanceBenchmark(SparkSession spark, TributaryConfig config) {
    this.spark = spark;
    this.config = config;
  }

  public static void main(String[] args) throws Exception {
    Arguments options = BenchmarkWorkspace.arguments("bench-maintenance", args, Set.of("files", "rows", "repeats"), """
        A full scan of a table of many small files before and after compaction.
          --files N     data files before compaction (default 1000)
          --rows N      rows in the table (default 5000000)
          --repeats N   scans of each (default 3)
        """);
    int files = (int) BenchmarkWorkspace.positive(options, "files", "1000");
    long rows = BenchmarkWorkspace.positive(options, "rows", "5000000");
    int repeats = (int) BenchmarkWorkspace.positive(options, "repeats", "3");
    try (BenchmarkWorkspace workspace = BenchmarkWorkspace.open("maintenance", "")) {
      workspace.report(new MaintenanceBenchmark(workspace.spark(), workspace.config()).run(files, rows, repeats));
    }
    System.exit(0);
  }

  private String run(int files, long rows, int repeats) throws Exception {
    System.out.printf("== a table of %,d rows in %,d files%n", rows, files);
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lake.gold");
    spark.sql("CREATE TABLE " + TABLE + " (id BIGINT, customer BIGINT, amount DECIMAL(10,2), note STRING,"
        + " event_time TIMESTAMP) USING iceberg TBLPROPERTIES ('format-version' = '2',"
        + " 'write.distribution-mode' = 'none', 'write.parquet.compression-codec' = 'zstd')");
    spark.sql("SELECT id, pmod(xxhash64(id), 100000) AS customer, CAST(pmod(id, 100000) / 100 AS DECIMAL(10,2))"
        + " AS amount, concat('note-', pmod(id, 977)) AS note, timestamp_millis(1764000000000 + id * 10)"
        + " AS event_time FROM range(0, " + rows + ")").repartition(files).writeTo(TABLE).append();
    long dataFiles = dataFiles();
    Row expected = spark.sql(SCAN).first();

    List<Long> before = scans(repeats);
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    long compactionStart = System.nanoTime();
    new MaintenanceJob(spark, config).run(Optional.of("gold.bench_events"), Optional.of(Operation.REWRITE_DATA_FILES),
        new PrintStream(log, true, StandardCharsets.UTF_8));
    long compactionMillis = (System.nanoTime() - compactionStart) / 1_000_000;
    String output = log.toString(StandardCharsets.UTF_8);
    System.out.print(output);
    long compactedFiles = dataFiles();
    List<Long> after = scans(repeats);
    if (!spark.sql(SCAN).first().equals(expected)) {
      throw new IllegalStateException("the scan's result changed with compaction: " + expected + " before, "
          + spark.sql(SCAN).first() + " after");
    }
    long medianBefore = median(before);
    long medianAfter = median(after);
    double speedup = (double) medianBefore / medianAfter;

    StringBuilder text = new StringBuilder();
    text.append("# Compaction: full scan before and after, ").append(LocalDateTime.now().withNano(0)).append("\n\n");
    text.append(String.format("Machine: %d cores, Java %s, Spark master %s. Command: `bin/tributary bench-maintenance"
        + " --files %d --rows %d --repeats %d`.%n%n", Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"), spark.sparkContext().master(), files, rows, repeats));
    text.append(String.format("Table: %,d rows in %,d data files; the scan reads every column (`%s`).%n%n", rows,
        dataFiles, SCAN));
    text.append("| | data files | full scan (median) | all runs (ms) |\n|---|---:|---:|---|\n");
    text.append(String.format("| before | %,d | %,d ms | %s |%n", dataFiles, medianBefore, before));
    text.append(String.format("| after compaction | %,d | %,d ms | %s |%n", compactedFiles, medianAfter, after));
    text.append(String.format("%nScan speed-up: %.1fx. Target: >= 3x: %s. Compaction (`tributary maintain"
        + " --operation rewrite-data-files`) took %,d ms. Checked: the scan's result is the same before and after.%n",
        speedup, speedup >= 3 ? "met" : "NOT met", compactionMillis));
    return text.toString();
  }

  private long dataFiles() {
    return spark.sql("SELECT count(*) FROM " + TABLE + ".files WHERE content = 0").first().getLong(0);
  }

  private List<Long> scans(int repeats) {
    List<Long> millis = new ArrayList<>();
    for (int i = 0; i < repeats; i++) {
      long start = System.nanoTime();
      spark.sql(SCAN).first();
      millis.add((System.nanoTime() - start) / 1_000_000);
      System.out.printf("   full scan: %,d ms%n", millis.get(millis.size() - 1));
    }
    return millis;
  }

  private static long median(List<Long> values) {
    return values.stream().sorted().toList().get(values.size() / 2);
  }
}
