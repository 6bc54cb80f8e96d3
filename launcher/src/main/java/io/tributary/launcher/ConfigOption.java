package io.tributary.launcher;

import com.typesafe.config.ConfigFactory;
import io.tributary.common.config.TributaryConfig;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Option;

/** The {@code --config FILE} every job command takes (a picocli mixin). */
public final class ConfigOption {
  @Option(names = "--config", required = true, paramLabel = "FILE",
      description = "The lakehouse configuration (HOCON), e.g. conf/application.conf. bin/tributary passes"
          + " conf/application.conf when it is not given.")
  Path file;

  public TributaryConfig load() {
    return TributaryConfig.load(file);
  }

  /** Loads with some keys forced, e.g. the local broker's address for the demo. */
  public static TributaryConfig load(Path file, Map<String, Object> forced) {
    return TributaryConfig.load(file, ConfigFactory.parseMap(forced));
  }
}
