package io.tributary.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.bronze.BronzeReingest;
import io.tributary.common.lakehouse.StreamRuns;
import io.tributary.gold.GoldJob;
import io.tributary.gold.Interval;
import io.tributary.maintenance.MaintenanceJob;
import io.tributary.maintenance.Operation;
import io.tributary.maintenance.TableHealth;
import io.tributary.silver.SilverRebuild;
import java.time.Duration;
import java.time.LocalDate;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** What each job's result says as a command's last line, and the exit code it maps to. */
class JobResultsTest {

  @Test
  void eachResultDescribesWhatItsJobDid() {
    assertThat(new StreamRuns.Outcome(List.of(new StreamRuns.StreamRun("bronze-orders", 2, 20_000)),
        Duration.ofMillis(8_200)).describe()).isEqualTo("1 stream in 8.2 s, 20,000 records: bronze-orders 2 batches,"
        + " 20,000 records");
    Interval days = Interval.days(LocalDate.of(2026, 12, 1), LocalDate.of(2026, 12, 3));
    assertThat(new GoldJob.Result(days, List.of(), 4, true, Duration.ofSeconds(2)).describe())
        .isEqualTo("dry run of 4 models for 2026-12-01..2026-12-03; nothing was written");
    assertThat(new GoldJob.Result(days, List.of(), 0, false, Duration.ofMillis(1_500)).describe())
        .isEqualTo("0 models built for 2026-12-01..2026-12-03 in 1.5 s");
    Map<Operation, Integer> ran = new EnumMap<>(Operation.class);
    ran.put(Operation.EXPIRE_SNAPSHOTS, 3);
    ran.put(Operation.REWRITE_DATA_FILES, 1);
    Map<String, TableHealth> tables = new java.util.LinkedHashMap<>();
    tables.put("lake.bronze.orders", null);
    tables.put("lake.silver.orders", null);
    tables.put("lake.gold.daily_revenue", null);
    MaintenanceJob.Result maintained = new MaintenanceJob.Result(tables, ran, Duration.ofMillis(40_120));
    assertThat(maintained.describe())
        .isEqualTo("3 tables in 40.1 s; ran rewrite-data-files once, expire-snapshots 3 times");
    assertThat(new MaintenanceJob.Result(Map.of(), Map.of(), Duration.ZERO).describe())
        .isEqualTo("0 tables in 0.0 s; nothing was due");
    ran.clear();
    assertThat(maintained.operations()).as("immutable, copied").hasSize(2);
    assertThat(new BronzeReingest.Result("lake.bronze.orders", 120, 110, 10, List.of()).describe())
        .isEqualTo("read 120 records from Kafka; 110 were in lake.bronze.orders already, 10 added");
    assertThat(new SilverRebuild.Result("lake.silver.orders", "snapshot", OptionalLong.of(1), 72L, 41_200, 41_205,
        "cp").describe()).isEqualTo("lake.silver.orders rebuilt: 41,205 rows (was 41,200), snapshot 72");
    assertThat(new RollbackCommand.Result("silver.orders", "snapshot", 5, 9, false, ".").describe())
        .isEqualTo("nothing changed (a preview). Add --apply to roll back to snapshot 5.");
    assertThat(new RollbackCommand.Result("silver.orders", "snapshot", 5, 9, true, "").describe())
        .isEqualTo("rolled back to snapshot 5. To undo: tributary rollback --config FILE --table silver.orders"
            + " --snapshot 9 --apply");
  }

  @Test
  void statusMapsItsReportToTheExitCodesASchedulerActsOn() {
    StatusCommand status = new StatusCommand();
    StatusCommand.Report caughtUp = new StatusCommand.Report(3, 0, true);
    StatusCommand.Report stalled = new StatusCommand.Report(3, 1, true);
    StatusCommand.Report unreachable = new StatusCommand.Report(0, 0, false);
    assertThat(status.exitCode(caughtUp)).isEqualTo(Tributary.OK);
    assertThat(status.exitCode(stalled)).isEqualTo(Tributary.FAILED);
    assertThat(status.exitCode(unreachable)).isEqualTo(Tributary.UNREACHABLE);
    assertThat(caughtUp.describe()).isEqualTo("all 3 streams are alive and caught up or catching up.");
    assertThat(stalled.describe()).startsWith("1 of 3 streams are stalled");
    assertThat(new BronzeCommand().exitCode(stalled)).as("any other command: 1 when the result did not succeed")
        .isEqualTo(Tributary.FAILED);
  }
}
