package io.tributary.bronze;

import java.util.List;
import java.util.stream.Collectors;

/** Offsets a bronze stream still needed that Kafka has already deleted (retention passed before ingestion). */
record LostOffsets(String sourceName, String table, List<Range> ranges) {

  /** Offsets {@code from} (inclusive) to {@code to} (exclusive) of one partition. */
  record Range(String topic, int partition, long from, long to) {
    long count() {
      return to - from;
    }

    @Override
    public String toString() {
      return topic + " partition " + partition + ": offsets " + from + " to " + (to - 1) + " (" + count() + " records)";
    }
  }

  boolean isEmpty() {
    return ranges.isEmpty();
  }

  long records() {
    return ranges.stream().mapToLong(Range::count).sum();
  }

  /** What was lost, for the error or the warning. */
  String describe() {
    return "Kafka no longer has " + records() + " records that bronze table " + table + " (source '" + sourceName
        + "') has not loaded yet; retention deleted them before they were ingested:\n"
        + ranges.stream().map(range -> "  " + range).collect(Collectors.joining("\n"));
  }

  /**
   * The error message when the source is set to fail: what was lost and the ways forward.
   *
   * @param whileRunning whether the stream found out while running (it stopped) or before starting
   */
  String failureMessage(boolean whileRunning) {
    return describe() + (whileRunning ? "\nThe stream stopped there" : "\nThe stream did not start")
        + ", so nothing was skipped. Either:\n"
        + "  - re-publish those records to the topic from their origin (the source database through Debezium, a mirror"
        + " or backup of the topic) and run bronze again, or\n"
        + "  - accept the loss: set tributary.bronze.sources." + sourceName + ".on-data-loss = skip, or run bronze"
        + " once with --accept-data-loss; it loads what Kafka still has and records the skipped ranges in the"
        + " table _lost_offsets next to " + table + ".";
  }
}
