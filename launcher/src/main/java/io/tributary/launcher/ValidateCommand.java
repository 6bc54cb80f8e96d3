package io.tributary.launcher;

import io.tributary.common.cli.UsageException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExecutionException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParseResult;

/**
 * {@code validate <command> [options]}: parses the command line as a run would and calls the command's
 * {@link JobCommand#check()}, everything it does before it starts Spark (its options, the config, the gold models,
 * local folders), with the same messages and exit codes as a real run; exits 0 printing "valid" when all of it
 * passes. Scheduler tests run every submitted command through this.
 */
@Command(name = "validate", description = "Checks a command's options, configuration and gold models as a run would,"
    + " without starting Spark; prints 'valid: ...' and exits 0 when all of it passes. Commands: bronze, silver, gold,"
    + " maintain, health, status, reingest, rebuild, rollback.")
final class ValidateCommand implements Callable<Integer> {
  @Parameters(arity = "0..*", paramLabel = "COMMAND [OPTIONS]",
      description = "The command line to check, as it would run, e.g. gold --config FILE --date 2026-11-30.")
  private List<String> commandLine = new ArrayList<>();

  private final Supplier<CommandLine> commands;

  /** @param commands a fresh tree of every command, with its error handlers */
  ValidateCommand(Supplier<CommandLine> commands) {
    this.commands = commands;
  }

  @Override
  public Integer call() {
    CommandLine line = commands.get();
    List<String> jobs = line.getSubcommands().entrySet().stream()
        .filter(command -> command.getValue().getCommand() instanceof JobCommand).map(java.util.Map.Entry::getKey)
        .toList();
    if (commandLine.isEmpty() || !jobs.contains(commandLine.get(0))) {
      throw new UsageException("'validate': give one of the commands " + String.join(", ", jobs)
          + " with its options, e.g. validate gold --config FILE --date 2026-11-30");
    }
    line.setExecutionStrategy(ValidateCommand::check);
    int code = line.execute(commandLine.toArray(String[]::new));
    if (code == Tributary.OK && !line.getParseResult().subcommand().isUsageHelpRequested()
        && !line.getParseResult().subcommand().isVersionHelpRequested()) {
      System.out.println("valid: tributary " + String.join(" ", commandLine));
    }
    return code;
  }

  /** Instead of running the command: its help if asked for, else its check. */
  private static int check(ParseResult parsed) {
    Integer help = CommandLine.executeHelpRequest(parsed);
    if (help != null) {
      return help;
    }
    CommandLine command = parsed.subcommand().commandSpec().commandLine();
    try {
      ((JobCommand) command.getCommand()).check();
    } catch (RuntimeException failure) {
      throw new ExecutionException(command, failure.getMessage(), failure);
    }
    return Tributary.OK;
  }
}
