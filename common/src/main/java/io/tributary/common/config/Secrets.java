package io.tributary.common.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Which settings hold secrets (passwords, JAAS lines, keys, tokens, credentials), so that a config printed in a log
 * line or an error shows {@code ***} in their place.
 */
final class Secrets {
  private static final Pattern SECRET = Pattern.compile(
      "(?i).*(password|jaas\\.config|token|credential|key)$|(?i).*secret.*");

  private Secrets() {}

  static boolean isSecret(String key) {
    return SECRET.matcher(key).matches();
  }

  /** The settings with every secret's value replaced by {@code ***}. */
  static Map<String, String> hidden(Map<String, String> settings) {
    Map<String, String> shown = new LinkedHashMap<>();
    settings.forEach((key, value) -> shown.put(key, isSecret(key) ? "***" : value));
    return shown;
  }
}
