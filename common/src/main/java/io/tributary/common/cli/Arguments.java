package io.tributary.common.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The parsed options of one subcommand: {@code --name value}, {@code --name=value}, flags, and positionals.
 * Anything the subcommand did not declare is rejected with a message naming it, stray words included (so that
 * {@code silver once} fails instead of running continuously); {@code -h} and {@code --help} anywhere ask for help.
 */
public final class Arguments {
  private final String command;
  private final Map<String, String> values;
  private final Set<String> flags;
  private final List<String> positionals;

  private Arguments(String command, Map<String, String> values, Set<String> flags, List<String> positionals) {
    this.command = command;
    this.values = values;
    this.flags = flags;
    this.positionals = positionals;
  }

  /**
   * @param command the subcommand, for messages
   * @param valueOptions options that take a value, without the leading dashes
   * @param flagOptions options without a value
   */
  public static Arguments parse(String command, List<String> args, Set<String> valueOptions, Set<String> flagOptions) {
    return parse(command, args, valueOptions, flagOptions, 0);
  }

  /**
   * As {@link #parse(String, List, Set, Set)}, for a subcommand that takes up to {@code maxPositionals} words besides
   * its options (e.g. {@code kafka start}).
   */
  public static Arguments parse(String command, List<String> args, Set<String> valueOptions, Set<String> flagOptions,
      int maxPositionals) {
    if (args.contains("-h") || args.contains("--help")) {
      throw new HelpRequested(command);
    }
    Map<String, String> values = new LinkedHashMap<>();
    Set<String> flags = new TreeSet<>();
    List<String> positionals = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (!arg.startsWith("--")) {
        if (arg.startsWith("-") && arg.length() > 1) {
          throw new UsageException("'" + command + "': unknown option " + arg + known(valueOptions, flagOptions));
        }
        if (positionals.size() >= maxPositionals) {
          String hint = flagOptions.contains(arg) ? "; did you mean --" + arg + "?" : "; options start with --";
          throw new UsageException("'" + command + "': unexpected argument '" + arg + "'" + hint);
        }
        positionals.add(arg);
        continue;
      }
      String name = arg.substring(2);
      String value = null;
      int equals = name.indexOf('=');
      if (equals >= 0) {
        value = name.substring(equals + 1);
        name = name.substring(0, equals);
      }
      if (flagOptions.contains(name) && value == null) {
        flags.add(name);
      } else if (valueOptions.contains(name)) {
        if (value == null) {
          if (i + 1 >= args.size() || args.get(i + 1).startsWith("--")) {
            throw new UsageException("'" + command + "': option --" + name + " needs a value");
          }
          value = args.get(++i);
        }
        String earlier = values.put(name, value);
        if (earlier != null) {
          // The last one winning would run a command with a value the user may not have meant.
          throw new UsageException("'" + command + "': option --" + name + " is given twice ('" + earlier + "' and '"
              + value + "')");
        }
      } else if (flagOptions.contains(name)) {
        throw new UsageException("'" + command + "': option --" + name + " takes no value");
      } else {
        throw new UsageException("'" + command + "': unknown option --" + name + known(valueOptions, flagOptions));
      }
    }
    return new Arguments(command, values, flags, positionals);
  }

  private static String known(Set<String> valueOptions, Set<String> flagOptions) {
    Set<String> known = new TreeSet<>(valueOptions);
    known.addAll(flagOptions);
    return known.isEmpty() ? "" : " (options: --" + String.join(", --", known) + ")";
  }

  public Optional<String> value(String name) {
    return Optional.ofNullable(values.get(name));
  }

  public String required(String name) {
    return value(name).orElseThrow(() -> new UsageException("'" + command + "': option --" + name + " is required"));
  }

  public boolean flag(String name) {
    return flags.contains(name);
  }

  public List<String> positionals() {
    return positionals;
  }

  public String command() {
    return command;
  }
}
