package io.tributary.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad command lines and configs, each run through the command line as a user would: the exit code, one line naming
 * the option, key or path (never a secret, never a stack trace), and nothing written. docs/RELIABILITY.md lists the
 * other kinds of bad input (records, dependencies) and the tests that hold them.
 */
class BadInputCorpusTest {
  private static final String SECRET = "hunter2-not-for-logs";
  private static final String GOOD = """
      tributary {
        catalog.warehouse = "%DIR%/warehouse"
        kafka.bootstrap-servers = "127.0.0.1:1"
        checkpoint-location = "%DIR%/checkpoints"
        bronze.sources.orders { topic = "shop.orders", table = "bronze.orders" }
        silver.entities.orders { source = bronze.orders, decoder = json, key = [id], sequence = [seq],
          table = silver.orders, schema = "id BIGINT, seq BIGINT" }
      }
      """;

  /**
   * A kind of bad input: {@code %DIR%} stands for the test's folder, {@code %CONF%} for its config file (written
   * from {@code config}), a message ending in "..." for a prefix.
   */
  record Case(String kind, String config, String args, int exit, String message) {
    @Override
    public String toString() {
      return kind;
    }
  }

  static Stream<Case> corpus() {
    return Stream.of(
        new Case("config file missing", GOOD, "bronze --config %DIR%/nope.conf", Tributary.USAGE,
            "Invalid configuration: --config: file %DIR%/nope.conf does not exist"),
        new Case("config file is a folder", GOOD, "silver --config %DIR%/folder", Tributary.USAGE,
            "Invalid configuration: --config: %DIR%/folder is a folder, not a file"),
        new Case("config file that is not HOCON", "tributary { kafka.bootstrap-servers = ", "bronze --config %CONF%",
            Tributary.USAGE, "Invalid configuration: --config: %DIR%/lakehouse.conf, line 1: not valid HOCON:"
                + " Expecting a value but got wrong token: end of file"),
        new Case("empty config file", "", "bronze --config %CONF%", Tributary.USAGE,
            "Invalid configuration (3 problems):\n  - tributary.catalog.warehouse: is missing\n"
                + "  - tributary.kafka.bootstrap-servers: is missing\n  - tributary.checkpoint-location: is missing"),
        new Case("warehouse under a file", GOOD + "tributary.catalog.warehouse = \"%DIR%/blocker/warehouse\"",
            "bronze --config %CONF% --once", Tributary.USAGE,
            "Invalid configuration: tributary.catalog.warehouse: cannot create the folder %DIR%/blocker/warehouse:"
                + " %DIR%/blocker is a file"),
        new Case("checkpoint location is a file", GOOD + "tributary.checkpoint-location = \"%DIR%/blocker\"",
            "silver --config %CONF% --once", Tributary.USAGE,
            "Invalid configuration: tributary.checkpoint-location: %DIR%/blocker is a file, not a folder"),
        new Case("unusable path, found by validate", GOOD + "tributary.catalog.warehouse = \"%DIR%/blocker/w\"",
            "validate maintain --config %CONF%", Tributary.USAGE,
            "Invalid configuration: tributary.catalog.warehouse: cannot create the folder %DIR%/blocker/w:"
                + " %DIR%/blocker is a file"),
        new Case("an option given twice", GOOD, "gold --config %CONF% --date 2026-11-01 --date 2026-11-02",
            Tributary.USAGE, "'gold': option --date is given twice ('2026-11-01' and '2026-11-02')"),
        new Case("a misspelt key next to a secret", GOOD + "tributary.kafka.options { \"sasl.jaas.config\" ="
            + " \"org.apache.kafka.common.security.plain.PlainLoginModule required username=u password=" + SECRET
            + ";\" }\ntributary.bronze.sources.orders.triger = 5s", "bronze --config %CONF%", Tributary.USAGE,
            "Invalid configuration: tributary.bronze.sources.orders.triger: is not a known setting (known: ..."),
        new Case("a secret of the wrong type", GOOD + "tributary.kafka.options { \"ssl.truststore.password\" ="
            + " [\"" + SECRET + "\"] }", "bronze --config %CONF%", Tributary.USAGE,
            "Invalid configuration: tributary.kafka.options.\"ssl.truststore.password\": must be a string, got a"
                + " list")
    );
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("corpus")
  void failsWithOneLineAndWritesNothing(Case bad, @TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("blocker"), "a file where a folder would be");
    Files.createDirectories(dir.resolve("folder"));
    Path config = Files.writeString(dir.resolve("lakehouse.conf"), bad.config().replace("%DIR%", dir.toString()));
    List<String> args = Arrays.stream(bad.args().split(" "))
        .map(arg -> arg.replace("%CONF%", config.toString()).replace("%DIR%", dir.toString())).toList();

    CommandRun run = CommandRun.of(args.toArray(String[]::new));
    int exit = run.code();
    String stderr = run.err();
    String expected = bad.message().replace("%DIR%", dir.toString());
    assertThat(exit).as(stderr).isEqualTo(bad.exit());
    // One line, or one per problem when a config has several.
    assertThat(stderr.lines().toList()).as("lines").hasSameSizeAs(expected.lines().toList());
    if (expected.endsWith("...")) {
      assertThat(stderr.strip()).startsWith(expected.substring(0, expected.length() - 3));
    } else {
      assertThat(stderr.strip()).isEqualTo(expected);
    }
    assertThat(stderr + run.out()).doesNotContain(SECRET);
    try (Stream<Path> written = Files.list(dir)) {
      assertThat(written.map(path -> path.getFileName().toString())).as("nothing written")
          .containsExactlyInAnyOrder("blocker", "folder", "lakehouse.conf");
    }
  }
}
