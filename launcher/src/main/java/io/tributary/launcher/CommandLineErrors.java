package io.tributary.launcher;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.OverwrittenOptionException;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * A command line that cannot run: one line naming the command and the option or word at fault (with a suggestion
 * where one is close), exit code 2. Nothing has started.
 */
final class CommandLineErrors implements IParameterExceptionHandler {
  @Override
  public int handleParseException(ParameterException problem, String[] args) {
    problem.getCommandLine().getErr().println(message(problem, List.of(args)));
    problem.getCommandLine().getErr().flush();
    return Tributary.USAGE;
  }

  static String message(ParameterException problem, List<String> args) {
    CommandLine command = problem.getCommandLine();
    String prefix = "'" + command.getCommandName() + "': ";
    if (problem instanceof UnmatchedArgumentException unmatched && !unmatched.getUnmatched().isEmpty()) {
      String word = unmatched.getUnmatched().get(0);
      if (command.getParent() == null && !word.startsWith("-")) {
        return "Unknown command '" + word + "'." + Suggestion.closest(word, command.getSubcommands().keySet())
            .map(name -> " Did you mean '" + name + "'?").orElse("") + " Commands: "
            + String.join(", ", command.getSubcommands().keySet())
            + " (tributary --help says what each does).";
      }
      if (word.startsWith("-")) {
        String name = word.contains("=") ? word.substring(0, word.indexOf('=')) : word;
        return prefix + "unknown option " + word + Suggestion.closest(name.startsWith("--") ? name : "-" + name,
            command.getCommandSpec().optionsMap().keySet()).map(option -> "; did you mean " + option + "?").orElse("")
            + " (tributary " + command.getCommandName() + " --help lists them)";
      }
      boolean isOptionName = command.getCommandSpec().optionsMap().containsKey("--" + word);
      return prefix + "unexpected argument '" + word + "'"
          + (isOptionName ? "; did you mean --" + word + "?" : "; options start with --");
    }
    if (problem instanceof MissingParameterException missing && !missing.getMissing().isEmpty()) {
      ArgSpec first = missing.getMissing().get(0);
      if (first instanceof OptionSpec option) {
        String name = option.longestName();
        boolean given = args.stream().anyMatch(arg -> arg.equals(name) || arg.startsWith(name + "="));
        return prefix + "option " + name + (given ? " needs a value" : " is required");
      }
      return prefix + "give " + first.paramLabel();
    }
    if (problem instanceof OverwrittenOptionException twice && twice.getOverwritten() instanceof OptionSpec option) {
      // The last one winning would run a command with a value the user may not have meant.
      return prefix + "option " + option.longestName() + " is given twice (" + String.join(" and ",
          valuesOf(option, args)) + ")";
    }
    String text = problem.getMessage();
    return prefix + (text.isEmpty() ? text : Character.toLowerCase(text.charAt(0)) + text.substring(1));
  }

  /** The values an option was given on the command line, quoted. */
  private static List<String> valuesOf(OptionSpec option, List<String> args) {
    List<String> values = new java.util.ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      for (String name : option.names()) {
        if (args.get(i).equals(name) && i + 1 < args.size()) {
          values.add("'" + args.get(i + 1) + "'");
        } else if (args.get(i).startsWith(name + "=")) {
          values.add("'" + args.get(i).substring(name.length() + 1) + "'");
        }
      }
    }
    return values;
  }
}
