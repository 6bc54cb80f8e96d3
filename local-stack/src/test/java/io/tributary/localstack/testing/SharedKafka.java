package io.tributary.localstack.testing;

import io.tributary.localstack.LocalKafkaBroker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One real Kafka broker per test JVM, started on first use in a temporary folder and stopped when the JVM exits.
 * Tests get it as a {@link LocalKafkaBroker} parameter with {@code @ExtendWith(SharedKafka.class)}.
 */
public final class SharedKafka implements ParameterResolver {
  private static LocalKafkaBroker broker;

  /**
   * Broker settings for tests: no retention by default (tests send records with fixed, past timestamps, which a
   * 7-day retention would delete under them), and a log cleaner that checks often, so that a test that sets a
   * short retention on its topic sees it delete old segments.
   */
  private static final Map<String, String> TEST_SETTINGS = Map.of(
      "log.retention.ms", "-1",
      "log.retention.check.interval.ms", "1000",
      "log.segment.delete.delay.ms", "0");

  public static synchronized LocalKafkaBroker broker() {
    if (broker == null) {
      try {
        Path home = Files.createTempDirectory("tributary-kafka-");
        broker = LocalKafkaBroker.start(home, TEST_SETTINGS);
        LocalKafkaBroker started = broker;
        Runtime.getRuntime().addShutdownHook(new Thread(started::stop, "stop-test-kafka"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return broker;
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == LocalKafkaBroker.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return broker();
  }
}
