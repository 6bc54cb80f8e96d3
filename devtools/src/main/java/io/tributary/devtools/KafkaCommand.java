package io.tributary.devtools;

import io.tributary.common.cli.UsageException;
import io.tributary.launcher.Tributary;
import io.tributary.localstack.LocalKafkaBroker;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kafka start|stop|status [--home DIR]}: the local Kafka broker of the embedded stack. */
@Command(name = "kafka", description = "The local KRaft broker of the embedded stack (its own JVM; data in"
    + " var/kafka): start it, stop it, or ask whether it runs (exit 1 when not).")
final class KafkaCommand implements Callable<Integer> {
  static final Path DEFAULT_HOME = Path.of("var", "kafka");

  @Parameters(paramLabel = "start|stop|status", description = "What to do.")
  private String action;

  @Option(names = "--home", paramLabel = "DIR", description = "The broker's folder (default var/kafka).")
  private Path homeOption;

  @Override
  public Integer call() {
    Path home = Optional.ofNullable(homeOption).orElse(DEFAULT_HOME).toAbsolutePath();
    Optional<LocalKafkaBroker> running = LocalKafkaBroker.find(home);
    switch (action) {
      case "start" -> {
        if (running.isPresent()) {
          System.out.println("Kafka is already running at " + running.get().bootstrapServers() + " (pid "
              + running.get().pid() + ")");
        } else {
          LocalKafkaBroker broker = LocalKafkaBroker.start(home, Map.of());
          System.out.println("Kafka started at " + broker.bootstrapServers() + " (pid " + broker.pid() + ", data in "
              + home + ")");
        }
        return Tributary.OK;
      }
      case "stop" -> {
        if (running.isEmpty()) {
          System.out.println("Kafka is not running (" + home + ")");
        } else {
          running.get().stop();
          System.out.println("Kafka stopped (pid " + running.get().pid() + ")");
        }
        return Tributary.OK;
      }
      case "status" -> {
        if (running.isPresent() && running.get().isServing()) {
          System.out.println("Kafka is running at " + running.get().bootstrapServers() + " (pid "
              + running.get().pid() + ")");
          return Tributary.OK;
        }
        System.out.println("Kafka is not running (" + home + ")");
        return Tributary.FAILED;
      }
      default -> throw new UsageException("'kafka': unknown action '" + action
          + "' (start, stop or status)");
    }
  }
}
