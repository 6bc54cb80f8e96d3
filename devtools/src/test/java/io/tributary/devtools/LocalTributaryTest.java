package io.tributary.devtools;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.launcher.CapturedConsole;
import io.tributary.launcher.Tributary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** bin/tributary's command line: the production commands and this machine's tools, failing fast like them. */
class LocalTributaryTest {
  @RegisterExtension
  final CapturedConsole console = new CapturedConsole();

  @Test
  void addsTheLocalToolsAfterTheProductionCommands() {
    Tributary local = LocalTributary.commands();
    assertThat(local.commandNames()).containsExactly("bronze", "silver", "gold", "maintain", "health", "status",
        "reingest", "rebuild", "rollback", "validate", "kafka", "produce", "notebook-kernel", "demo", "help");
    assertThat(local.run(List.of())).isEqualTo(Tributary.USAGE);
    assertThat(console.out()).contains("kafka", "produce", "notebook-kernel", "demo");
    for (String command : List.of("kafka", "produce", "notebook-kernel", "demo")) {
      console.forgetOut();
      assertThat(LocalTributary.commands().run(List.of(command, "--help"))).as(command).isEqualTo(Tributary.OK);
      assertThat(console.out().lines()).as(command)
          .anyMatch(line -> line.startsWith("Usage: tributary " + command + " "));
    }
    assertThat(console.err()).isEmpty();
  }

  @Test
  void strayWordsAreErrors() {
    assertThat(LocalTributary.commands().run(List.of("kafka", "start", "now"))).isEqualTo(Tributary.USAGE);
    assertThat(LocalTributary.commands().run(List.of("kafka", "restart"))).isEqualTo(Tributary.USAGE);
    assertThat(console.err().lines()).containsExactly("'kafka': unexpected argument 'now'; options start with --",
        "'kafka': unknown action 'restart' (start, stop or status)");
  }

  @Test
  void validateTakesJobsOnlyNotTheLocalTools() {
    assertThat(LocalTributary.commands().run(List.of("validate", "kafka", "start"))).isEqualTo(Tributary.USAGE);
    assertThat(console.err()).startsWith("'validate': give one of the commands bronze, silver, gold,");
  }

  @Test
  void rejectsABadFractionForTheProducer() {
    assertThat(LocalTributary.commands().run(List.of("produce", "--config", "../conf/application.conf",
        "--duplicates", "2"))).isEqualTo(Tributary.USAGE);
    assertThat(console.err()).isEqualTo("'produce': --duplicates must be a fraction between 0 and 1, got 2.0");
  }

  @Test
  void rejectsARateThatIsNotANumber() {
    assertThat(LocalTributary.commands().run(List.of("produce", "--config", "../conf/application.conf", "--rate",
        "x"))).isEqualTo(Tributary.USAGE);
    assertThat(console.err()).isEqualTo("'produce': invalid value for option '--rate': 'x' is not a double");
  }

  @Test
  void producingWithoutABrokerFailsWithOneLineNamingTheAddress(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("down.conf");
    // The client's own timeout short, so that the test does not wait the 30 s a real run gives the broker.
    Files.writeString(config, """
        tributary {
          catalog.warehouse = "%s"
          kafka { bootstrap-servers = "127.0.0.1:1", options { "default.api.timeout.ms" = 1500 } }
          checkpoint-location = "%s"
        }
        """.formatted(dir.resolve("warehouse"), dir.resolve("checkpoints")));
    assertThat(LocalTributary.commands().run(List.of("produce", "--config", config.toString())))
        .isEqualTo(Tributary.FAILED);
    assertThat(console.err().lines()).singleElement().asString()
        .startsWith("tributary produce: Kafka at 127.0.0.1:1 (tributary.kafka.bootstrap-servers): cannot create topics")
        .endsWith("; start the broker (bin/tributary kafka start) or fix the address, and run again."
            + " Nothing was sent.");
  }
}
