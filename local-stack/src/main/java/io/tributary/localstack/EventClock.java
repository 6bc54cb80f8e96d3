package io.tributary.localstack;

/** Spreads event times evenly over the configured span, so that the sample data covers several days. */
final class EventClock {
  private EventClock() {}

  static long at(GeneratorOptions options, long step, long total) {
    long spanMs = options.span().toMillis();
    return options.start().toEpochMilli() + (total <= 1 ? 0 : spanMs * step / (total - 1));
  }
}
