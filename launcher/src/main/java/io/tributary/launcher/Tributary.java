package io.tributary.launcher;

import io.tributary.bronze.BronzeDataLossException;
import io.tributary.common.cli.HelpRequested;
import io.tributary.common.cli.UsageException;
import io.tributary.common.config.InvalidConfigException;
import io.tributary.common.lakehouse.DependencyUnavailableException;
import io.tributary.gold.InvalidModelException;
import io.tributary.gold.ModelFailedException;
import io.tributary.maintenance.DamagedTablesException;
import io.tributary.silver.UnmappableTypeException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The single entry point of the Tributary jar.
 *
 * <pre>
 * spark-submit --class io.tributary.launcher.Tributary tributary-VERSION.jar bronze --config lakehouse.conf
 * bin/tributary bronze --once            # the same locally, with conf/application.conf
 * </pre>
 *
 * Exit codes: 0 done, 1 the job failed, 2 bad command line, configuration or gold models (nothing was started);
 * {@code status}: 3 when Kafka does not answer.
 */
public final class Tributary {
  static final int OK = 0;
  static final int FAILED = 1;
  static final int USAGE = 2;
  /** {@code status}: Kafka did not answer, so where the streams stand is unknown. */
  static final int UNREACHABLE = 3;

  private final Map<String, Command> commands = new LinkedHashMap<>();

  Tributary() {
    for (Command command : List.of(new BronzeCommand(), new SilverCommand(), new GoldCommand(), new MaintainCommand(), new HealthCommand(),
        new StatusCommand(), new ReingestCommand(), new RebuildCommand(), new RollbackCommand(), new KafkaCommand(),
        new ProduceCommand(), new NotebookKernelCommand(),
        new DemoCommand())) {
      commands.put(command.name(), command);
    }
  }

  /**
   * Returns normally when the command succeeded, as a cluster manager expects of an application's main (YARN records
   * an application whose main calls {@code System.exit} as failed). A failure ends the JVM with its exit code in a
   * local run and under spark-submit's client mode, where the caller (Airflow, a shell) reads that code; in a driver
   * that a cluster manager started (cluster deploy mode) it throws instead, so that the manager records the
   * application as failed with the reason.
   */
  public static void main(String[] args) {
    int code = new Tributary().run(Arrays.asList(args));
    DriverExit.finish(code);
  }

  int run(List<String> args) {
    if (args.isEmpty() || args.get(0).equals("--help") || args.get(0).equals("help")) {
      System.out.println(usage());
      return args.isEmpty() ? USAGE : OK;
    }
    if (args.get(0).equals("validate")) {
      return validate(args.subList(1, args.size()));
    }
    Command command = commands.get(args.get(0));
    if (command == null) {
      System.err.println("Unknown command '" + args.get(0) + "'.\n" + usage());
      return USAGE;
    }
    return execute(command, args.subList(1, args.size()));
  }

  /** Commands that start Spark, and so can be validated up to that point. */
  private static final List<String> VALIDATED = List.of("bronze", "silver", "gold", "maintain", "health", "status",
      "reingest", "rebuild", "rollback");

  /**
   * {@code validate <command> [options]}: everything the command checks before it starts Spark (its options, the
   * config, the gold models), with the same messages and exit codes as a real run; exits 0 printing "valid" when
   * all of it passes. Scheduler tests run every submitted command through this.
   */
  private int validate(List<String> args) {
    if (args.isEmpty() || !VALIDATED.contains(args.get(0))) {
      System.err.println("'validate': give one of the commands " + String.join(", ", VALIDATED)
          + " with its options, e.g. validate gold --config FILE --date 2026-11-30");
      return USAGE;
    }
    Sessions.validateOnly(true);
    try {
      int code = execute(commands.get(args.get(0)), args.subList(1, args.size()));
      if (code == OK) {
        System.out.println("valid: tributary " + String.join(" ", args));
      }
      return code;
    } finally {
      Sessions.validateOnly(false);
    }
  }

  private int execute(Command command, List<String> args) {
    try {
      return command.run(args);
    } catch (Sessions.Validated valid) {
      return OK;
    } catch (HelpRequested help) {
      System.out.println("Usage: tributary " + command.name() + " " + command.usage());
      return OK;
    } catch (UsageException | InvalidConfigException | InvalidModelException e) {
      System.err.println(e.getMessage());
      return USAGE;
    } catch (ModelFailedException e) {
      System.err.println("tributary gold failed: " + e.getMessage());
      return FAILED;
    } catch (DamagedTablesException e) {
      System.err.println("tributary " + command.name() + ": " + e.getMessage());
      return FAILED;
    } catch (DependencyUnavailableException | UnmappableTypeException e) {
      System.err.println("tributary " + command.name() + ": " + e.getMessage());
      return FAILED;
    } catch (BronzeDataLossException e) {
      System.err.println(e.getMessage());
      if (e.getCause() != null) {
        System.err.println("Spark reported: " + e.getCause().getMessage());
      }
      return FAILED;
    } catch (Exception e) {
      System.err.println("tributary " + command.name() + " failed: " + e);
      e.printStackTrace(System.err);
      return FAILED;
    }
  }

  /** The subcommands, in the order the usage lists them. */
  List<String> commandNames() {
    return List.copyOf(commands.keySet());
  }

  String usage() {
    StringBuilder text = new StringBuilder("Usage: tributary <command> [options]\n\nCommands:\n");
    commands.values().forEach(command ->
        text.append(String.format("  %-15s %s%n", command.name(), command.usage())));
    text.append(String.format("  %-15s %s%n", "validate", "<command> [options]   check a command's options, config and"
        + " gold models as a run would, without starting Spark (exit 0: valid)"));
    return text.toString();
  }
}
