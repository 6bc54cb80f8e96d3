package io.tributary.common.config;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * How one table is kept healthy: when its small files are compacted and how, how long its snapshots are kept, when
 * an unreferenced file counts as orphaned, and (silver current-state tables) when a tombstone may go.
 *
 * @param targetFileSize the size compaction writes files of, in bytes
 * @param minInputFiles a partition is compacted when it has at least this many files to rewrite
 * @param strategy how compaction lays out rows
 * @param sortBy for {@link Strategy#SORT}: the columns rows are sorted by
 * @param quietFor only partitions that no commit touched for this long are compacted (so a live stream's current
 *     partition is left alone); zero compacts every partition
 * @param snapshotRetention snapshots older than this are expired (never one a downstream stream still needs)
 * @param retainLast at least this many snapshots are kept, however old
 * @param orphanAge files no snapshot references are deleted when older than this (at least one day)
 * @param tombstoneHorizon silver current-state tables: tombstones of deletes older than this (in the source's time)
 *     are removed; a change older than the delete arriving after that would bring the key back
 */
public record MaintenancePolicy(long targetFileSize, long minInputFiles, Strategy strategy, List<String> sortBy,
    Duration quietFor, Duration snapshotRetention, long retainLast, Duration orphanAge, Duration tombstoneHorizon) {

  /** The smallest orphan age accepted: a file written by a commit still in progress looks like an orphan. */
  public static final Duration MIN_ORPHAN_AGE = Duration.ofDays(1);

  static final Set<String> KEYS = Set.of("target-file-size", "min-input-files", "strategy", "sort-by", "quiet-for",
      "snapshot-retention", "retain-last", "orphan-age", "tombstone-horizon");

  public enum Strategy {
    /** Combine small files into files of the target size, rows in their current order. */
    BINPACK,
    /** Rewrite rows sorted by {@code sort-by}, so that queries filtering on those columns skip more files. */
    SORT
  }

  static MaintenancePolicy read(ConfigReader reader) {
    reader.rejectUnknownKeys(KEYS);
    Strategy strategy = reader.oneOf("strategy", Strategy.class);
    List<String> sortBy = reader.optionalStringList("sort-by");
    if (strategy == Strategy.SORT && (sortBy == null || sortBy.isEmpty())) {
      reader.problem("sort-by", "must name the columns to sort by when strategy = sort");
    }
    Duration orphanAge = reader.positiveDuration("orphan-age");
    if (orphanAge.compareTo(MIN_ORPHAN_AGE) < 0 && !orphanAge.isZero()) {
      reader.valueProblem("orphan-age", "must be at least 1 day (a file of a commit still in progress has no snapshot"
          + " yet and would be deleted), got " + orphanAge.toHours() + " hours");
    }
    return new MaintenancePolicy(reader.positiveBytes("target-file-size"), reader.positiveLong("min-input-files"),
        strategy, sortBy == null ? List.of() : List.copyOf(sortBy), reader.nonNegativeDuration("quiet-for"),
        reader.positiveDuration("snapshot-retention"), reader.positiveLong("retain-last"), orphanAge,
        reader.positiveDuration("tombstone-horizon"));
  }
}
