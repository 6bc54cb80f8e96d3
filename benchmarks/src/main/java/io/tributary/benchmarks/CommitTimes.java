package io.tributary.benchmarks;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.metrics.CommitReport;
import org.apache.iceberg.metrics.MetricsReport;
import org.apache.iceberg.metrics.MetricsReporter;
import org.apache.iceberg.metrics.TimerResult;

/**
 * Iceberg's own measure of each commit (its {@code CommitReport}: writing the manifest list and metadata and swapping
 * the catalog's pointer, retries included), collected for {@link CatalogBenchmark}. Iceberg creates the reporter
 * from the catalog property {@code metrics-reporter-impl}, so the times are kept in one list per JVM.
 */
public final class CommitTimes implements MetricsReporter {
  private static final List<Sample> SAMPLES = new ArrayList<>();

  /** One commit: how long it took and how many attempts it needed. */
  record Sample(String table, long nanos, long attempts) {}

  @Override
  public void report(MetricsReport report) {
    if (report instanceof CommitReport commit) {
      TimerResult duration = commit.commitMetrics().totalDuration();
      if (duration != null) {
        long attempts = commit.commitMetrics().attempts() == null ? 1 : commit.commitMetrics().attempts().value();
        synchronized (SAMPLES) {
          SAMPLES.add(new Sample(commit.tableName(), duration.totalDuration().toNanos(), attempts));
        }
      }
    }
  }

  /** The commits reported so far to tables whose name ends with {@code table}, and forgets them. */
  static List<Sample> take(String table) {
    synchronized (SAMPLES) {
      List<Sample> taken = SAMPLES.stream().filter(sample -> sample.table().endsWith(table)).toList();
      SAMPLES.removeAll(taken);
      return taken;
    }
  }
}
