package io.tributary.maintenance;

import java.time.Instant;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.LongFunction;
import org.apache.iceberg.Table;

/**
 * The guard of snapshot expiry: the policy's cutoff, moved back to the commit time of a snapshot that a stream still
 * has to read from, so that neither that snapshot nor any later one expires.
 *
 * @param cutoff snapshots committed before this may expire
 * @param heldBack whether a stream's position moved the cutoff back
 */
record ExpiryCutoff(Instant cutoff, boolean heldBack) {

  /**
   * @param olderThan the policy's cutoff
   * @param keepFrom the snapshot a stream resumes at, if any
   * @param commitTime a snapshot's commit time, empty when the table no longer has it
   * @throws IllegalStateException when the snapshot a stream needs is gone (the stream cannot resume)
   */
  static ExpiryCutoff of(Instant olderThan, OptionalLong keepFrom, LongFunction<Optional<Instant>> commitTime,
      String table) {
    if (keepFrom.isEmpty()) {
      return new ExpiryCutoff(olderThan, false);
    }
    Instant needed = commitTime.apply(keepFrom.getAsLong()).orElseThrow(() -> new IllegalStateException(
        "a stream still needs snapshot " + keepFrom.getAsLong() + " of " + table + ", which no longer exists: the"
            + " stream cannot resume; rebuild it from the start of the table"));
    return needed.isBefore(olderThan) ? new ExpiryCutoff(needed, true) : new ExpiryCutoff(olderThan, false);
  }

  /**
   * Of the snapshots the streams reading a table resume at (stream → snapshot id), the one committed first; a
   * snapshot the table no longer has counts as the oldest, so that expiry then fails naming it.
   */
  static Optional<Map.Entry<String, Long>> oldestPosition(Map<String, Long> positions,
      LongFunction<Optional<Instant>> commitTime) {
    return positions.entrySet().stream().min(Comparator.comparing(
        entry -> commitTime.apply(entry.getValue()).orElse(Instant.MIN)));
  }

  /** The commit times of {@code table}'s snapshots, as it was last refreshed. */
  static LongFunction<Optional<Instant>> commitTimes(Table table) {
    return id -> Optional.ofNullable(table.snapshot(id))
        .map(snapshot -> Instant.ofEpochMilli(snapshot.timestampMillis()));
  }
}
