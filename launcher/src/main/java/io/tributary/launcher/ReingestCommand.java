package io.tributary.launcher;

import io.tributary.bronze.BronzeReingest;
import io.tributary.bronze.BronzeReingest.Bounds;
import io.tributary.common.cli.Arguments;
import io.tributary.common.cli.UsageException;
import io.tributary.common.config.TributaryConfig;
import java.util.List;
import java.util.Set;

/**
 * {@code reingest --config FILE --source NAME (--from-offsets JSON [--to-offsets JSON] | --from-time T --to-time T)
 * [--accept-data-loss]}: loads a range of a topic into bronze again, adding only what bronze does not hold.
 */
final class ReingestCommand implements Command {
  @Override
  public String name() {
    return "reingest";
  }

  @Override
  public String usage() {
    return "--config FILE --source NAME (--from-offsets JSON [--to-offsets JSON] | --from-time T --to-time T)"
        + " [--accept-data-loss]\n           load a range of Kafka records into bronze again; records bronze holds"
        + " already are not added twice";
  }

  @Override
  public int run(List<String> argList) throws Exception {
    Arguments args = Arguments.parse(name(), argList, Set.of("config", "source", "from-offsets", "to-offsets",
        "from-time", "to-time"), Set.of("accept-data-loss"));
    String source = args.required("source");
    Bounds bounds = bounds(args);
    TributaryConfig config = ConfigOption.load(args);
    if (!config.bronze().sources().containsKey(source)) {
      throw new UsageException("'reingest': no bronze source named '" + source + "' (sources: "
          + String.join(", ", new java.util.TreeSet<>(config.bronze().sources().keySet())) + ")");
    }
    try {
      new BronzeReingest(Sessions.start(config, name()), config).run(source, bounds, args.flag("accept-data-loss"),
          System.out);
    } catch (BronzeReingest.InvalidRange e) {
      // Thrown before anything is read or written.
      throw new UsageException("'reingest': " + e.getMessage());
    }
    return Tributary.OK;
  }

  static Bounds bounds(Arguments args) {
    boolean offsets = args.value("from-offsets").isPresent() || args.value("to-offsets").isPresent();
    boolean times = args.value("from-time").isPresent() || args.value("to-time").isPresent();
    if (offsets == times) {
      throw new UsageException("'reingest': give the range either as --from-offsets JSON [--to-offsets JSON] or as"
          + " --from-time T --to-time T");
    }
    if (offsets) {
      return new Bounds.Offsets(args.required("from-offsets"), args.value("to-offsets"));
    }
    var from = Times.instant("reingest", "from-time", args.required("from-time"));
    var to = Times.instant("reingest", "to-time", args.required("to-time"));
    if (!from.isBefore(to)) {
      throw new UsageException("'reingest': --from-time must be before --to-time");
    }
    return new Bounds.Times(from, to);
  }
}
