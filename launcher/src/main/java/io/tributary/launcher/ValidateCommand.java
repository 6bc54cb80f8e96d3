package io.tributary.launcher;

import io.tributary.common.cli.UsageException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.ToIntFunction;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code validate <command> [options]}: everything the command checks before it starts Spark (its options, the
 * config, the gold models), with the same messages and exit codes as a real run; exits 0 printing "valid" when all of
 * it passes. Scheduler tests run every submitted command through this.
 */
@Command(name = "validate", description = "Checks a command's options, configuration and gold models as a run would,"
    + " without starting Spark; prints 'valid: ...' and exits 0 when all of it passes. Commands: bronze, silver, gold,"
    + " maintain, health, status, reingest, rebuild, rollback.")
final class ValidateCommand implements Callable<Integer> {
  /** Commands that start Spark, and so can be validated up to that point. */
  private static final List<String> VALIDATED = List.of("bronze", "silver", "gold", "maintain", "health", "status",
      "reingest", "rebuild", "rollback");

  @Parameters(arity = "0..*", paramLabel = "COMMAND [OPTIONS]",
      description = "The command line to check, as it would run, e.g. gold --config FILE --date 2026-11-30.")
  private List<String> commandLine = new ArrayList<>();

  private final ToIntFunction<List<String>> run;

  /** @param run runs a command line and returns its exit code */
  ValidateCommand(ToIntFunction<List<String>> run) {
    this.run = run;
  }

  @Override
  public Integer call() {
    if (commandLine.isEmpty() || !VALIDATED.contains(commandLine.get(0))) {
      throw new UsageException("'validate': give one of the commands " + String.join(", ", VALIDATED)
          + " with its options, e.g. validate gold --config FILE --date 2026-11-30");
    }
    Sessions.validateOnly(true);
    try {
      int code = run.applyAsInt(commandLine);
      if (code == Tributary.OK && !commandLine.contains("--help") && !commandLine.contains("-h")) {
        System.out.println("valid: tributary " + String.join(" ", commandLine));
      }
      return code;
    } finally {
      Sessions.validateOnly(false);
    }
  }
}
