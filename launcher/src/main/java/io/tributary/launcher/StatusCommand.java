package io.tributary.launcher;

import io.tributary.bronze.BronzeStatus;
import io.tributary.common.cli.JobResult;
import io.tributary.common.cli.UsageException;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.DependencyUnavailableException;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.StorageReachability;
import io.tributary.common.lakehouse.StreamState;
import io.tributary.silver.SilverStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code status --config FILE [--max-idle DURATION]}: where every bronze and silver stream stands, from its
 * checkpoint and its source; exits 1 when one is behind and has not committed a batch for {@code --max-idle}.
 */
@Command(name = "status", description = "Where every bronze and silver stream stands, from its checkpoint and its"
    + " source: alive and caught up, catching up, or stalled. Exits 1 when a stream is behind and has committed"
    + " nothing for --max-idle, 3 when Kafka or the lakehouse's storage does not answer.")
final class StatusCommand extends JobCommand {
  @Mixin
  private ConfigOption configOption;

  @Option(names = "--max-idle", paramLabel = "DURATION", defaultValue = "15m", description = "How long a stream"
      + " that is behind may go without a commit before it counts as stalled: 90s, 15m, 2h or ISO-8601 (PT15M);"
      + " default ${DEFAULT-VALUE}.")
  private String maxIdleText;

  @Override
  Job check() {
    Duration maxIdle = duration(maxIdleText);
    TributaryConfig config = configOption.load();
    return new Job("status", config, spark -> report(spark, config, maxIdle));
  }

  /** Where the streams stand: how many are stalled, or that Kafka or the storage did not answer. */
  record Report(int streams, long stalled, boolean reachable) implements JobResult {
    @Override
    public String describe() {
      if (!reachable) {
        return "unknown: Kafka or the lakehouse's storage did not answer (the reason is on stderr)";
      }
      return stalled == 0 ? "all " + streams + " streams are alive and caught up or catching up."
          : stalled + " of " + streams + " streams are stalled; see docs/RUNBOOK.md and the streams' driver logs.";
    }

    @Override
    public boolean succeeded() {
      return reachable && stalled == 0;
    }
  }

  /** 3 when Kafka or the storage did not answer: not "a stream is behind", so a scheduler's next step differs. */
  @Override
  int exitCode(JobResult result) {
    return result instanceof Report report && !report.reachable() ? Tributary.UNREACHABLE : super.exitCode(result);
  }

  private static Report report(SparkSession spark, TributaryConfig config, Duration maxIdle) {
    LakehouseSession.registerCatalog(spark, config.catalog());
    List<StreamState> states;
    List<String> databaseTables;
    try {
      states = new ArrayList<>(BronzeStatus.of(config, spark.sparkContext().hadoopConfiguration()));
      states.addAll(SilverStatus.of(spark, config));
      databaseTables = SilverStatus.databaseTables(spark, config);
    } catch (DependencyUnavailableException e) {
      System.err.println("tributary status: " + e.getMessage());
      return new Report(0, 0, false);
    } catch (RuntimeException e) {
      Optional<String> unreachable = StorageReachability.unreachable(e);
      if (unreachable.isEmpty()) {
        throw e;
      }
      System.err.println("tributary status: the lakehouse's storage or catalog did not answer (tributary.catalog: "
          + config.catalog().type().name().toLowerCase(java.util.Locale.ROOT) + " at "
          + Optional.ofNullable(config.catalog().warehouse()).orElse("its configured address")
          + "; tributary.checkpoint-location " + config.checkpointLocation() + "): " + unreachable.get()
          + ". Nothing was read; run again once it answers.");
      return new Report(0, 0, false);
    }
    Instant now = Instant.now();
    states.forEach(state -> System.out.println(state.describe(now, maxIdle)));
    databaseTables.forEach(System.out::println);
    return new Report(states.size(), states.stream().filter(state -> state.stalled(now, maxIdle)).count(), true);
  }

  /** {@code 15m}, {@code 90s}, {@code 2h}, or an ISO-8601 duration ({@code PT15M}). */
  static Duration duration(String text) {
    try {
      if (text.matches("\\d+[smh]")) {
        long amount = Long.parseLong(text.substring(0, text.length() - 1));
        return switch (text.charAt(text.length() - 1)) {
          case 's' -> Duration.ofSeconds(amount);
          case 'm' -> Duration.ofMinutes(amount);
          default -> Duration.ofHours(amount);
        };
      }
      return Duration.parse(text);
    } catch (RuntimeException e) {
      throw new UsageException("'status': --max-idle must be a duration such as 15m, 90s or 2h; got '" + text + "'");
    }
  }
}
