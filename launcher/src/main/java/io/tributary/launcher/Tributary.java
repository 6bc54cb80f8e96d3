package io.tributary.launcher;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

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
 *
 * <p>The jar holds the production commands only. The tools for this machine (demo, local broker, sample producer,
 * notebook kernel) live in the devtools module, whose entry point builds this same command tree with its commands
 * added ({@link #Tributary(Supplier)}).
 */
@Command(name = "tributary", scope = ScopeType.INHERIT, mixinStandardHelpOptions = true,
    versionProvider = TributaryVersion.class, sortOptions = false, usageHelpAutoWidth = true,
    description = "Kafka to a lakehouse: bronze tables land the topics exactly once, silver tables keep the current"
        + " state of CDC entities, gold tables are built from SQL models; maintenance and recovery keep them healthy.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:done", "1:the run failed (the reason is the last lines of stderr)",
        "2:fix the command line, configuration or gold models (nothing was started)",
        "3:status only: Kafka or the lakehouse's storage did not answer"})
public final class Tributary implements Callable<Integer> {
  public static final int OK = 0;
  public static final int FAILED = 1;
  public static final int USAGE = 2;
  /** {@code status}: Kafka did not answer, so where the streams stand is unknown. */
  public static final int UNREACHABLE = 3;

  private final Supplier<List<?>> moreCommands;

  @Spec
  private CommandLine.Model.CommandSpec spec;

  /**
   * Returns normally when the command succeeded, as a cluster manager expects of an application's main (YARN records
   * an application whose main calls {@code System.exit} as failed). A failure ends the JVM with its exit code in a
   * local run and under spark-submit's client mode, where the caller (Airflow, a shell) reads that code; in a driver
   * that a cluster manager started (cluster deploy mode) it throws instead, so that the manager records the
   * application as failed with the reason.
   */
  public static void main(String[] args) {
    new Tributary().runAsMain(args);
  }

  /** The production commands. */
  public Tributary() {
    this(List::of);
  }

  /**
   * The production commands and more, listed after them: picocli command objects, made anew for each command line
   * (picocli keeps the parsed values in them).
   */
  public Tributary(Supplier<List<?>> moreCommands) {
    this.moreCommands = moreCommands;
  }

  /** What {@code main} does: runs the command line, then ends as {@link #main} describes. */
  public void runAsMain(String[] args) {
    DriverExit.finish(run(Arrays.asList(args)));
  }

  /** Runs one command line; returns its exit code. */
  public int run(List<String> args) {
    return commandLine().execute(args.toArray(String[]::new));
  }

  /** Without a command: the list of commands, and exit code 2 (nothing was asked for). */
  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return USAGE;
  }

  /** The command tree, built anew for each run (its writers are the System.out and System.err of that moment). */
  CommandLine commandLine() {
    CommandLine line = new CommandLine(this);
    List<Object> commands = new ArrayList<>(List.of(new BronzeCommand(), new SilverCommand(), new GoldCommand(),
        new MaintainCommand(), new HealthCommand(), new StatusCommand(), new ReingestCommand(), new RebuildCommand(),
        new RollbackCommand(), new ValidateCommand(this::commandLine)));
    commands.addAll(moreCommands.get());
    commands.add(new HelpCommand());
    for (Object command : commands) {
      line.addSubcommand(command);
    }
    // The root's own footer, set after the subcommands took the inherited attributes.
    line.getCommandSpec().usageMessage().footer("%nEvery command has --help ('tributary help COMMAND' says the same);"
        + " the README is the manual.");
    // validate: everything after the command's name is that command's line, options included.
    line.getSubcommands().get("validate").setStopAtPositional(true).setUnmatchedOptionsArePositionalParams(true);
    // Read when the command runs, not when this was built: tests and notebooks swap System.out and System.err.
    line.setOut(new PrintWriter(System.out, true));
    line.setErr(new PrintWriter(System.err, true));
    line.setExpandAtFiles(false); // '@' starts no argument file: a value is what it says
    line.setParameterExceptionHandler(new CommandLineErrors());
    line.setExecutionExceptionHandler(new RunFailures());
    return line;
  }

  /** The subcommands, in the order the usage lists them. */
  public List<String> commandNames() {
    return List.copyOf(commandLine().getSubcommands().keySet());
  }
}
