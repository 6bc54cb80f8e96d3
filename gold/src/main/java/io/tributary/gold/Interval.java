package io.tributary.gold;

import java.time.LocalDate;
import java.time.format.DateTimeParseException;

/**
 * The data interval of a run: whole days from {@code start} (inclusive) to {@code end} (exclusive), as a scheduler
 * hands them out. A model sees it as {@code {{ start }}} and {@code {{ end }}}.
 */
public record Interval(LocalDate start, LocalDate end) {
  public Interval {
    if (!end.isAfter(start)) {
      throw new IllegalArgumentException("an interval must end after it starts: " + start + " to " + end);
    }
  }

  /** One day, as {@code --date} gives it. */
  public static Interval day(LocalDate day) {
    return new Interval(day, day.plusDays(1));
  }

  /** The days {@code first} to {@code last}, both included, as {@code --from} and {@code --to} give them. */
  public static Interval days(LocalDate first, LocalDate last) {
    if (last.isBefore(first)) {
      throw new IllegalArgumentException("--to " + last + " is before --from " + first);
    }
    return new Interval(first, last.plusDays(1));
  }

  /** Parses a {@code YYYY-MM-DD} option value; the message names the option. */
  public static LocalDate date(String option, String text) {
    try {
      return LocalDate.parse(text);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(option + " must be a date YYYY-MM-DD, got '" + text + "'");
    }
  }

  /** The last day in the interval. */
  public LocalDate lastDay() {
    return end.minusDays(1);
  }

  /** {@code 2026-11-01} for one day, {@code 2026-11-01..2026-11-05} for several (both days included). */
  @Override
  public String toString() {
    return start.equals(lastDay()) ? start.toString() : start + ".." + lastDay();
  }

  /** The SQL literal of {@code {{ start }}}. */
  String startLiteral() {
    return "DATE'" + start + "'";
  }

  /** The SQL literal of {@code {{ end }}}: the day after the last one. */
  String endLiteral() {
    return "DATE'" + end + "'";
  }
}
