package io.tributary.launcher;

import io.tributary.common.cli.Arguments;
import io.tributary.common.cli.UsageException;
import io.tributary.localstack.LocalKafkaBroker;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** {@code kafka start|stop|status [--home DIR]}: the local Kafka broker of the embedded stack. */
final class KafkaCommand implements Command {
  static final Path DEFAULT_HOME = Path.of("var", "kafka");

  @Override
  public String name() {
    return "kafka";
  }

  @Override
  public String usage() {
    return "start|stop|status [--home DIR]   the local KRaft broker (data in var/kafka)";
  }

  @Override
  public int run(List<String> argList) {
    Arguments args = Arguments.parse(name(), argList, Set.of("home"), Set.of(), 1);
    if (args.positionals().size() != 1) {
      throw new UsageException("'kafka': say start, stop or status");
    }
    Path home = args.value("home").map(Path::of).orElse(DEFAULT_HOME).toAbsolutePath();
    Optional<LocalKafkaBroker> running = LocalKafkaBroker.find(home);
    switch (args.positionals().get(0)) {
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
      default -> throw new UsageException("'kafka': unknown action '" + args.positionals().get(0)
          + "' (start, stop or status)");
    }
  }
}
