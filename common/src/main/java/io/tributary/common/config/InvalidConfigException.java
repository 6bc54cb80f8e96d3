package io.tributary.common.config;

import java.util.List;

/** Thrown at start-up when the configuration is unusable; every problem names the key it is about. */
public final class InvalidConfigException extends RuntimeException {
  private final List<String> problems;

  public InvalidConfigException(List<String> problems) {
    super(message(problems));
    this.problems = List.copyOf(problems);
  }

  /** Each problem reads {@code <key>: <what is wrong>}. */
  public List<String> problems() {
    return problems;
  }

  private static String message(List<String> problems) {
    if (problems.size() == 1) {
      return "Invalid configuration: " + problems.get(0);
    }
    return "Invalid configuration (" + problems.size() + " problems):\n  - " + String.join("\n  - ", problems);
  }
}
