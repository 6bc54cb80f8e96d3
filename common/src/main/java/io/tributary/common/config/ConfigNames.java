package io.tributary.common.config;

import java.util.Locale;

/** How enum constants are spelled in config files: lower case, kebab-case. */
public final class ConfigNames {
  private ConfigNames() {}

  public static String of(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
