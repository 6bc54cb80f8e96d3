package io.tributary.benchmarks;

import java.util.List;

/** Records per second over a set of micro-batches (or one tool run), with what it was measured on. */
record Rate(long records, long millis, int batches) {

  static Rate of(List<ProgressCollector.Batch> batches) {
    return new Rate(batches.stream().mapToLong(ProgressCollector.Batch::records).sum(),
        batches.stream().mapToLong(ProgressCollector.Batch::millis).sum(), batches.size());
  }

  /** The run with the median rate (an odd number of runs gives a run that really happened). */
  static Rate median(List<Rate> rates) {
    List<Rate> sorted = rates.stream().sorted(java.util.Comparator.comparingDouble(Rate::perSecond)).toList();
    return sorted.get(sorted.size() / 2);
  }

  double perSecond() {
    return millis == 0 ? 0 : records * 1000.0 / millis;
  }

  String formatted() {
    return String.format("%,.0f", perSecond());
  }
}
