package io.tributary.launcher;

import com.typesafe.config.ConfigFactory;
import io.tributary.common.cli.Arguments;
import io.tributary.common.config.TributaryConfig;
import java.nio.file.Path;
import java.util.Map;

/** The {@code --config FILE} every command takes. */
final class ConfigOption {
  private ConfigOption() {}

  static TributaryConfig load(Arguments args) {
    return TributaryConfig.load(Path.of(args.required("config")));
  }

  /** Loads with some keys forced, e.g. the local broker's address for the demo. */
  static TributaryConfig load(Path file, Map<String, Object> forced) {
    return TributaryConfig.load(file, ConfigFactory.parseMap(forced));
  }
}
