package io.tributary.common.cli;

/** A command line that cannot run: unknown command or option, missing value. Exit code 2. */
public final class UsageException extends RuntimeException {
  public UsageException(String message) {
    super(message);
  }
}
