package io.tributary.launcher;

import java.util.List;

/** One subcommand of the launcher. */
interface Command {
  String name();

  /** One line: arguments and what it does. */
  String usage();

  /** Runs with the arguments after the command name; returns the process exit code. */
  int run(List<String> args) throws Exception;
}
