package io.tributary.gold;

import java.util.List;

/** Gold models that cannot run, with every problem found, each naming its model (and line where it has one). */
public final class InvalidModelException extends RuntimeException {
  private final List<String> problems;

  public InvalidModelException(List<String> problems) {
    super("Invalid gold models:\n  " + String.join("\n  ", problems));
    this.problems = List.copyOf(problems);
  }

  public List<String> problems() {
    return problems;
  }
}
