package io.tributary.launcher;

import io.tributary.bronze.BronzeReingest;
import io.tributary.bronze.BronzeReingest.Bounds;
import io.tributary.common.cli.UsageException;
import io.tributary.common.config.TributaryConfig;
import java.time.Instant;
import java.util.Optional;
import java.util.TreeSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code reingest --config FILE --source NAME (--from-offsets JSON [--to-offsets JSON] | --from-time T --to-time T)
 * [--accept-data-loss]}: loads a range of a topic into bronze again, adding only what bronze does not hold.
 */
@Command(name = "reingest", description = "Loads a range of a source's Kafka records into its bronze table again;"
    + " records bronze holds already are not added twice. The range is --from-offsets JSON [--to-offsets JSON], or"
    + " --from-time T --to-time T.")
final class ReingestCommand extends JobCommand {
  @Mixin
  private ConfigOption config;

  @Option(names = "--source", required = true, paramLabel = "NAME",
      description = "The bronze source (a key of tributary.bronze.sources).")
  private String source;

  @Option(names = "--from-offsets", paramLabel = "JSON", description = "Start offsets as Spark's Kafka source takes"
      + " them, e.g. '{\"shop.orders\":{\"0\":1200,\"1\":1180}}'.")
  private String fromOffsets;

  @Option(names = "--to-offsets", paramLabel = "JSON", description = "End offsets (excluded); default: the end of"
      + " each partition now.")
  private String toOffsets;

  @Option(names = "--from-time", paramLabel = "T", description = "Records with a Kafka timestamp from T (UTC, e.g."
      + " 2026-11-30T12:00:00Z or '2026-11-30 12:00:00').")
  private String fromTime;

  @Option(names = "--to-time", paramLabel = "T", description = "... up to T (excluded).")
  private String toTime;

  @Option(names = "--accept-data-loss", description = "Go on when Kafka deleted part of the range (retention); the"
      + " lost offset ranges are recorded.")
  private boolean acceptDataLoss;

  @Override
  Job check() {
    Bounds bounds = bounds();
    TributaryConfig loaded = config.load();
    if (!loaded.bronze().sources().containsKey(source)) {
      throw new UsageException("'reingest': no bronze source named '" + source + "' (sources: "
          + String.join(", ", new TreeSet<>(loaded.bronze().sources().keySet())) + ")");
    }
    return new Job("reingest", loaded, spark -> {
      try {
        BronzeReingest reingest = new BronzeReingest(spark, loaded);
        return (acceptDataLoss ? reingest.acceptingDataLoss() : reingest).run(source, bounds, System.out);
      } catch (BronzeReingest.InvalidRange e) {
        // Thrown before anything is read or written.
        throw new UsageException("'reingest': " + e.getMessage());
      }
    });
  }

  private Bounds bounds() {
    boolean offsets = fromOffsets != null || toOffsets != null;
    boolean times = fromTime != null || toTime != null;
    if (offsets == times) {
      throw new UsageException("'reingest': give the range either as --from-offsets JSON [--to-offsets JSON] or as"
          + " --from-time T --to-time T");
    }
    if (offsets) {
      if (fromOffsets == null) {
        throw new UsageException("'reingest': option --from-offsets is required");
      }
      return new Bounds.Offsets(fromOffsets, Optional.ofNullable(toOffsets));
    }
    if (fromTime == null || toTime == null) {
      throw new UsageException("'reingest': option " + (fromTime == null ? "--from-time" : "--to-time")
          + " is required");
    }
    Instant from = Times.instant("reingest", "from-time", fromTime);
    Instant to = Times.instant("reingest", "to-time", toTime);
    if (!from.isBefore(to)) {
      throw new UsageException("'reingest': --from-time must be before --to-time");
    }
    return new Bounds.Times(from, to);
  }
}
