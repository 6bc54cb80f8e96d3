package io.tributary.maintenance;

import io.tributary.common.lakehouse.CommitConflicts;
import java.io.PrintStream;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * A maintenance operation whose commit lost to a concurrent writer (a stream committing a batch) is run again on the
 * refreshed table, up to {@value #ATTEMPTS} times with a growing pause; any other failure is not retried.
 */
final class ConflictRetry {
  private static final int ATTEMPTS = 4;
  private static final Duration PAUSE = Duration.ofSeconds(2);

  private ConflictRetry() {}

  /** Runs an operation again (on the refreshed table) when its commit lost to a concurrent writer. */
  static String run(String name, MaintainedTable table, PrintStream out, Supplier<String> operation) {
    for (int attempt = 1; ; attempt++) {
      try {
        return operation.get();
      } catch (RuntimeException e) {
        if (attempt >= ATTEMPTS || CommitConflicts.reason(e).isEmpty()) {
          throw e;
        }
        out.printf("   %s: commit conflict with a concurrent writer on %s (%s); retrying (%d/%d)%n", name,
            table.sqlName(), rootMessage(e), attempt, ATTEMPTS - 1);
        try {
          Thread.sleep(PAUSE.toMillis() * attempt);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  private static String rootMessage(Throwable error) {
    Throwable root = error;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    String message = String.valueOf(root.getMessage());
    return message.lines().findFirst().orElse(message);
  }
}
