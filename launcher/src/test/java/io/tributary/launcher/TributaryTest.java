package io.tributary.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The command line fails fast, before any Spark session, with exit code 2 and a message naming the problem. */
class TributaryTest {
  @RegisterExtension
  final CapturedConsole console = new CapturedConsole();

  @Test
  void listsTheCommandsWithoutArguments() {
    assertThat(new Tributary().run(List.of())).isEqualTo(Tributary.USAGE);
    assertThat(console.out()).contains("bronze", "silver", "gold", "rebuild", "validate");
  }

  @Test
  void rejectsAnUnknownCommand() {
    assertThat(new Tributary().run(List.of("silverr"))).isEqualTo(Tributary.USAGE);
    assertThat(console.err()).startsWith("Unknown command 'silverr'.");
  }

  @Test
  void rejectsAnUnknownOption() {
    assertThat(new Tributary().run(List.of("bronze", "--config", "x.conf", "--onse"))).isEqualTo(Tributary.USAGE);
    assertThat(console.err()).isEqualTo("'bronze': unknown option --onse; did you mean --once? (tributary bronze --help"
        + " lists them)");
  }

  @Test
  void suggestsTheCommandMeant() {
    assertThat(new Tributary().run(List.of("rebiuld", "--table", "silver.orders"))).isEqualTo(Tributary.USAGE);
    assertThat(console.err()).startsWith("Unknown command 'rebiuld'. Did you mean 'rebuild'? Commands: bronze, silver,");
  }

  @Test
  void printsItsVersionAndWhatItWasBuiltFor() {
    for (List<String> args : List.of(List.of("--version"), List.of("-V"), List.of("silver", "--version"))) {
      console.forgetOut();
      assertThat(new Tributary().run(args)).as(String.join(" ", args)).isEqualTo(Tributary.OK);
      assertThat(console.out().lines().toList()).as(String.join(" ", args))
          .hasSize(3)
          .satisfies(lines -> assertThat(lines.get(0)).matches("tributary \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?"))
          .satisfies(lines -> assertThat(lines.get(1)).contains("Spark 4.1", "Iceberg 1.", "Delta Lake 4."))
          .satisfies(lines -> assertThat(lines.get(2)).startsWith("running on Spark 4.1").contains(", Java "));
    }
    assertThat(console.err()).isEmpty();
  }

  @Test
  void everyCommandAndOptionSaysWhatItDoes() {
    picocli.CommandLine root = new Tributary().commandLine();
    assertThat(root.getSubcommands()).hasSizeGreaterThan(10);
    root.getSubcommands().forEach((name, command) -> {
      assertThat(String.join(" ", command.getCommandSpec().usageMessage().description())).as(name).isNotBlank();
      command.getCommandSpec().options().forEach(option ->
          assertThat(String.join(" ", option.description())).as(name + " " + option.longestName()).isNotBlank());
    });
  }

  @Test
  void helpNamesACommandsOptionsWithWhatTheyDo() {
    assertThat(new Tributary().run(List.of("help", "reingest"))).isEqualTo(Tributary.OK);
    assertThat(console.out()).startsWith("Usage: tributary reingest ")
        .contains("--from-time=T", "Records with a Kafka timestamp from T", "--accept-data-loss");
  }

  @Test
  void everyCommandPrintsItsHelpAndRunsNothing() {
    Tributary tributary = new Tributary();
    for (String command : tributary.commandNames()) {
      for (String help : List.of("-h", "--help")) {
        console.forgetOut();
        // No config and nothing else: a command that ran would fail for want of --config.
        assertThat(tributary.run(List.of(command, help))).as(command + " " + help).isEqualTo(Tributary.OK);
        assertThat(console.out().lines()).as(command + " " + help)
            .anyMatch(line -> line.startsWith("Usage: tributary " + command + " "));
      }
    }
    // The production jar's commands only: the demo, the local broker, the producer and the notebook kernel are the
    // devtools module's (LocalTributaryTest).
    assertThat(tributary.commandNames()).containsExactly("bronze", "silver", "gold", "maintain", "health", "status",
        "reingest", "rebuild", "rollback", "validate", "help");
    assertThat(console.err()).isEmpty();
  }

  @Test
  void strayWordsAndSingleDashOptionsAreErrorsNotIgnored() {
    List<List<String>> wrong = List.of(
        List.of("silver", "--config", "x.conf", "once"),
        List.of("maintain", "--config", "x.conf", "all"),
        List.of("bronze", "--config", "x.conf", "-once"),
        List.of("bronze", "--config", "x.conf", "--once=yes"));
    for (List<String> args : wrong) {
      assertThat(new Tributary().run(args)).as(String.join(" ", args)).isEqualTo(Tributary.USAGE);
    }
    assertThat(console.err().lines()).containsExactly(
        "'silver': unexpected argument 'once'; did you mean --once?",
        "'maintain': unexpected argument 'all'; options start with --",
        "'bronze': unknown option -once; did you mean --once? (tributary bronze --help lists them)",
        "'bronze': invalid value for option '--once': 'yes' is not a boolean");
  }

  @Test
  void requiresAConfig() {
    assertThat(new Tributary().run(List.of("bronze", "--once"))).isEqualTo(Tributary.USAGE);
    assertThat(console.err()).isEqualTo("'bronze': option --config is required");
  }

  @Test
  void goldNeedsAValidIntervalBeforeAnythingStarts() {
    List<List<String>> wrong = List.of(
        List.of("gold", "--config", "x.conf"),
        List.of("gold", "--config", "x.conf", "--date", "2026-11-31"),
        List.of("gold", "--config", "x.conf", "--date", "2026-11-01", "--from", "2026-11-01"),
        List.of("gold", "--config", "x.conf", "--from", "2026-11-02", "--to", "2026-11-01"),
        List.of("gold", "--config", "x.conf", "--from", "2026-11-02"),
        List.of("gold", "--config", "x.conf", "--date", "2026-11-01", "--downstream"));
    for (List<String> args : wrong) {
      assertThat(new Tributary().run(args)).as(String.join(" ", args)).isEqualTo(Tributary.USAGE);
    }
    assertThat(console.err().lines()).containsExactly(
        "'gold': give the data interval: --date YYYY-MM-DD, or --from and --to",
        "'gold': --date must be a date YYYY-MM-DD, got '2026-11-31'",
        "'gold': give either --date or --from and --to, not both",
        "'gold': --to 2026-11-01 is before --from 2026-11-02",
        "'gold': option --to is required",
        "'gold': --downstream needs --select MODEL");
  }

  @Test
  void recoveryCommandsCheckTheirArgumentsBeforeAnythingStarts() {
    String config = "../conf/application.conf";
    List<List<String>> wrong = List.of(
        List.of("reingest", "--config", config, "--source", "orders"),
        List.of("reingest", "--config", config, "--source", "orders", "--from-offsets", "{}", "--from-time",
            "2026-11-01"),
        List.of("reingest", "--config", config, "--source", "orders", "--from-time", "yesterday", "--to-time",
            "2026-11-01"),
        List.of("reingest", "--config", config, "--source", "orders", "--from-time", "2026-11-02", "--to-time",
            "2026-11-01"),
        List.of("reingest", "--config", config, "--source", "payments", "--from-time", "2026-11-01", "--to-time",
            "2026-11-02"),
        List.of("rebuild", "--config", config, "--table", "orders"),
        List.of("rebuild", "--config", config, "--table", "bronze.orders"),
        List.of("rebuild", "--config", config, "--table", "silver.payments"),
        List.of("rebuild", "--config", config, "--table", "gold.daily_revenue", "--from-snapshot", "1"),
        List.of("rebuild", "--config", config, "--table", "silver.orders", "--from-snapshot", "latest"),
        List.of("rollback", "--config", config, "--table", "silver.orders"),
        List.of("rollback", "--config", config, "--table", "bronze.orders", "--snapshot", "1"));
    for (List<String> args : wrong) {
      assertThat(new Tributary().run(args)).as(String.join(" ", args)).isEqualTo(Tributary.USAGE);
    }
    assertThat(console.err().lines()).containsExactly(
        "'reingest': give the range either as --from-offsets JSON [--to-offsets JSON] or as --from-time T"
            + " --to-time T",
        "'reingest': give the range either as --from-offsets JSON [--to-offsets JSON] or as --from-time T"
            + " --to-time T",
        "'reingest': --from-time must be a time such as 2026-11-30T12:00:00Z or 2026-11-30 12:00:00 (UTC); got"
            + " 'yesterday'",
        "'reingest': --from-time must be before --to-time",
        "'reingest': no bronze source named 'payments' (sources: customers, inventory, orders)",
        "'rebuild': --table must be NAMESPACE.TABLE; got 'orders'",
        "'rebuild': bronze.orders is a bronze table, the raw record of Kafka; load missing records with"
            + " 'reingest', and rebuild the silver tables built from it",
        "'rebuild': silver.payments is not the silver table of any entity in tributary.silver.entities (tables:"
            + " silver.customer_history, silver.customers, silver.orders)",
        "'rebuild': a gold table is rebuilt from its days (--from and --to), not from a snapshot; to go back to a"
            + " snapshot, use rollback",
        "'rebuild': --from-snapshot must be a number; got 'latest'",
        "'rollback': give the target as --snapshot ID or --timestamp T",
        "'rollback': bronze.orders is a bronze table, the raw record of Kafka: its stream has loaded the records a"
            + " rollback would drop, so they would be lost. Roll back the silver or gold tables built from it"
            + " instead.");
  }

  @Test
  void recoveryOfIcebergSilverOnDeltaBronzeAndRollbackOfDeltaGoldPassTheirChecks(@TempDir Path dir) throws Exception {
    String lakehouse = "catalog.warehouse = \"" + dir.resolve("wh") + "\"\n checkpoint-location = \""
        + dir.resolve("cp") + "\", kafka.bootstrap-servers = \"127.0.0.1:1\"\n"
        + " bronze.sources.orders { topic = orders, table = bronze.orders }\n"
        + " silver.entities.orders { source = bronze.orders, decoder = debezium-json, table = silver.orders } }\n";
    Path deltaBronze = dir.resolve("delta-bronze.conf");
    Files.writeString(deltaBronze, "tributary { bronze.format = delta, " + lakehouse);
    Path delta = dir.resolve("delta.conf");
    Files.writeString(delta, "tributary { format = delta, " + lakehouse);
    for (List<String> command : List.of(
        List.of("rebuild", "--config", deltaBronze.toString(), "--table", "silver.orders"),
        List.of("rebuild", "--config", deltaBronze.toString(), "--table", "silver.orders", "--from-snapshot", "7"),
        List.of("rollback", "--config", deltaBronze.toString(), "--table", "silver.orders", "--snapshot", "7"),
        List.of("rollback", "--config", delta.toString(), "--table", "gold.daily_revenue", "--snapshot", "1"))) {
      List<String> validate = new java.util.ArrayList<>(List.of("validate"));
      validate.addAll(command);
      assertThat(new Tributary().run(validate)).as(String.join(" ", command)).isEqualTo(Tributary.OK);
    }
    assertThat(console.err()).isEmpty();
  }

  @Test
  void recoveryOfDeltaSilverEntitiesAndDatabaseTablesPassesItsChecks(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("delta.conf");
    Files.writeString(config, "tributary { format = delta, catalog.warehouse = \"" + dir.resolve("wh") + "\"\n"
        + " checkpoint-location = \"" + dir.resolve("cp") + "\", kafka.bootstrap-servers = \"127.0.0.1:1\"\n"
        + " bronze.sources.orders { topic = orders, table = bronze.orders }\n"
        + " bronze.sources.shop { pattern = \"shop\\\\..*\", table = bronze.shop }\n"
        + " silver.entities.orders { source = bronze.orders, decoder = debezium-json, table = silver.orders }\n"
        + " silver.databases.shop { source = bronze.shop, table = \"shop.{table}\", topics = \"shop\\\\..*\" } }\n");
    for (List<String> command : List.of(List.of("rollback", "--table", "silver.orders", "--snapshot", "3"),
        List.of("rebuild", "--table", "silver.orders"), List.of("rebuild", "--table", "silver.orders",
            "--from-timestamp", "2026-12-01 10:00:00"), List.of("rebuild", "--table", "shop.customers"),
        List.of("rebuild", "--table", "shop.customers", "--from-snapshot", "4"),
        List.of("rollback", "--table", "shop.customers", "--snapshot", "1"))) {
      List<String> validate = new java.util.ArrayList<>(List.of("validate", command.get(0), "--config",
          config.toString()));
      validate.addAll(command.subList(1, command.size()));
      assertThat(new Tributary().run(validate)).as(String.join(" ", command)).isEqualTo(Tributary.OK);
    }
    assertThat(console.err()).isEmpty();
  }

  @Test
  void validationRunsACommandsChecksWithoutStartingSpark(@TempDir Path dir) throws Exception {
    Path repo = Path.of("..").toAbsolutePath().normalize();
    Path config = dir.resolve("lakehouse.conf");
    Files.writeString(config, "include file(\"" + repo.resolve("conf/application.conf") + "\")\n"
        + "tributary.gold.models = \"" + repo.resolve("gold/models") + "\"\n");
    assertThat(new Tributary().run(List.of("validate", "gold", "--config", config.toString(), "--from", "2026-11-28",
        "--to", "2026-11-30", "--select", "daily_revenue"))).isEqualTo(Tributary.OK);
    assertThat(console.out()).contains("valid: tributary gold --config");
    assertThat(new Tributary().run(List.of("validate", "gold", "--config", config.toString(), "--date", "2026-11-30",
        "--select", "daily_revenu"))).isEqualTo(Tributary.USAGE);
    assertThat(new Tributary().run(List.of("validate", "gold", "--config", config.toString(), "--form",
        "2026-11-30"))).isEqualTo(Tributary.USAGE);
    assertThat(new Tributary().run(List.of("validate", "kafka", "start"))).isEqualTo(Tributary.USAGE);
    assertThat(new Tributary().run(List.of("validate", "status", "--config", config.toString(), "--max-idle",
        "soon"))).isEqualTo(Tributary.USAGE);
    assertThat(console.err().lines()).containsExactly(
        "Invalid gold models:",
        "  --select: no model named 'daily_revenu' (known: country_value, customer_lifetime_value, daily_revenue,"
            + " orders_by_status)",
        "'gold': unknown option --form; did you mean --from? (tributary gold --help lists them)",
        "'validate': give one of the commands bronze, silver, gold, maintain, health, status, reingest, rebuild,"
            + " rollback with its options, e.g. validate gold --config FILE --date 2026-11-30",
        "'status': --max-idle must be a duration such as 15m, 90s or 2h; got 'soon'");
  }

  @Test
  void maintainNamesTheOperationsItKnows() {
    assertThat(new Tributary().run(List.of("maintain", "--config", "x.conf", "--operation", "compact")))
        .isEqualTo(Tributary.USAGE);
    assertThat(console.err()).isEqualTo("'maintain': --operation must be one of purge-tombstones, rewrite-data-files,"
        + " rewrite-position-deletes, rewrite-manifests, expire-snapshots, remove-orphan-files, optimize,"
        + " purge-deletion-vectors, vacuum;"
        + " got 'compact'");
  }

  @Test
  void reportsConfigErrorsByKeyBeforeStartingSpark(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("bad.conf");
    Files.writeString(config, """
        tributary {
          catalog.warehouse = "/tmp/wh"
          kafka.bootstrap-servers = "127.0.0.1:1"
          checkpoint-location = "/tmp/cp"
          bronze.sources.orders { topic = "shop.orders", table = "orders" }
        }
        """);
    assertThat(new Tributary().run(List.of("bronze", "--config", config.toString()))).isEqualTo(Tributary.USAGE);
    assertThat(console.err()).isEqualTo("Invalid configuration: tributary.bronze.sources.orders.table: must be"
        + " '<namespace>.<table>' with simple identifiers, got 'orders'");
  }

  @Test
  void reportsAConfigWithoutSources(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("empty.conf");
    Files.writeString(config, """
        tributary {
          catalog.warehouse = "/tmp/wh"
          kafka.bootstrap-servers = "127.0.0.1:1"
          checkpoint-location = "/tmp/cp"
        }
        """);
    assertThat(new Tributary().run(List.of("bronze", "--config", config.toString()))).isEqualTo(Tributary.USAGE);
    assertThat(console.err()).isEqualTo("Invalid configuration: tributary.bronze.sources: no sources are configured");
  }
}
