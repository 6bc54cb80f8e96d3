package io.tributary.gold;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A run's data interval: whole days, end exclusive, as a model's {{ start }} and {{ end }} see it; no Spark. */
class IntervalTest {
  private static final LocalDate NOV_1 = LocalDate.parse("2026-11-01");

  @Test
  void oneDayAndSeveralDaysEndTheDayAfterTheLast() {
    Interval day = Interval.day(NOV_1);
    assertThat(day.end()).isEqualTo(LocalDate.parse("2026-11-02"));
    assertThat(day.lastDay()).isEqualTo(NOV_1);
    assertThat(day).hasToString("2026-11-01");
    Interval days = Interval.days(NOV_1, LocalDate.parse("2026-11-05"));
    assertThat(days.end()).isEqualTo(LocalDate.parse("2026-11-06"));
    assertThat(days).hasToString("2026-11-01..2026-11-05");
    assertThat(Interval.days(NOV_1, NOV_1)).isEqualTo(day);
    // Across a month and a year boundary.
    assertThat(Interval.day(LocalDate.parse("2026-12-31")).end()).isEqualTo(LocalDate.parse("2027-01-01"));
  }

  @Test
  void aModelSeesTheBoundsAsDateLiteralsEndExclusive() {
    List<String> problems = new ArrayList<>();
    GoldModel model = GoldModel.parse("daily", "-- materialized: incremental\n-- partition-by: day\n"
        + "SELECT * FROM {{ source('silver.orders') }} WHERE t >= {{ start }} AND t < {{end}}", problems);
    assertThat(problems).isEmpty();
    assertThat(model.render(Interval.days(NOV_1, LocalDate.parse("2026-11-03")), table -> "lake." + table))
        .isEqualTo("SELECT * FROM lake.silver.orders WHERE t >= DATE'2026-11-01' AND t < DATE'2026-11-04'");
  }

  @Test
  void backwardsIntervalsAndBadDatesAreRefusedNamingTheOption() {
    assertThatThrownBy(() -> Interval.days(NOV_1, LocalDate.parse("2026-10-31")))
        .hasMessage("--to 2026-10-31 is before --from 2026-11-01");
    assertThatThrownBy(() -> new Interval(NOV_1, NOV_1))
        .hasMessage("an interval must end after it starts: 2026-11-01 to 2026-11-01");
    assertThatThrownBy(() -> Interval.date("--date", "2026-13-01"))
        .hasMessage("--date must be a date YYYY-MM-DD, got '2026-13-01'");
    assertThat(Interval.date("--from", "2026-02-28")).isEqualTo(LocalDate.parse("2026-02-28"));
  }
}
