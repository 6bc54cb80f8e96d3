package io.tributary.common.cli;

/** {@code -h} or {@code --help} among a subcommand's arguments: print its help and exit 0, running nothing. */
public final class HelpRequested extends RuntimeException {
  public HelpRequested(String command) {
    super("help for '" + command + "'", null, false, false);
  }
}
