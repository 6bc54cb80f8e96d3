package io.tributary.launcher;

import io.tributary.common.cli.UsageException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/** Points in time on the command line: ISO instants, or a date and time (or a date) taken as UTC. */
final class Times {
  private Times() {}

  static Instant instant(String command, String option, String text) {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException notInstant) {
      try {
        return LocalDateTime.parse(text.replace(' ', 'T')).toInstant(ZoneOffset.UTC);
      } catch (DateTimeParseException notDateTime) {
        try {
          return LocalDate.parse(text).atStartOfDay().toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException notDate) {
          throw new UsageException("'" + command + "': --" + option + " must be a time such as 2026-11-30T12:00:00Z"
              + " or 2026-11-30 12:00:00 (UTC); got '" + text + "'");
        }
      }
    }
  }

  static long number(String command, String option, String text) {
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new UsageException("'" + command + "': --" + option + " must be a number; got '" + text + "'");
    }
  }
}
