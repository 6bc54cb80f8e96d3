package io.tributary.launcher;

import io.tributary.bronze.BronzeDataLossException;
import io.tributary.common.cli.UsageException;
import io.tributary.common.config.InvalidConfigException;
import io.tributary.common.lakehouse.DependencyUnavailableException;
import io.tributary.common.lakehouse.UnwritableTableException;
import io.tributary.gold.InvalidModelException;
import io.tributary.gold.ModelFailedException;
import io.tributary.maintenance.DamagedTablesException;
import io.tributary.silver.UnmappableTypeException;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * What a command that stopped with an exception prints and exits with: 2 when the command, config or gold models
 * must be fixed (found before anything started), 1 when the run failed. Known failures are one line saying what to
 * do; only an unexpected one gets its stack trace.
 */
final class RunFailures implements IExecutionExceptionHandler {
  @Override
  public int handleExecutionException(Exception failure, CommandLine command, ParseResult parsed) {
    PrintWriter err = command.getErr();
    try {
      return report(failure, command.getCommandName(), err);
    } finally {
      err.flush();
    }
  }

  private static int report(Exception failure, String name, PrintWriter err) {
    if (failure instanceof UsageException || failure instanceof InvalidConfigException
        || failure instanceof InvalidModelException) {
      err.println(failure.getMessage());
      return Tributary.USAGE;
    }
    if (failure instanceof ModelFailedException) {
      err.println("tributary gold failed: " + failure.getMessage());
      return Tributary.FAILED;
    }
    if (failure instanceof DamagedTablesException || failure instanceof DependencyUnavailableException
        || failure instanceof UnmappableTypeException || failure instanceof UnwritableTableException) {
      err.println("tributary " + name + ": " + failure.getMessage());
      return Tributary.FAILED;
    }
    if (failure instanceof BronzeDataLossException) {
      err.println(failure.getMessage());
      if (failure.getCause() != null) {
        err.println("Spark reported: " + failure.getCause().getMessage());
      }
      return Tributary.FAILED;
    }
    err.println("tributary " + name + " failed: " + failure);
    failure.printStackTrace(err);
    return Tributary.FAILED;
  }
}
