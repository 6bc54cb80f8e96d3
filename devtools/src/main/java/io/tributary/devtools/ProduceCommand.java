package io.tributary.devtools;

import io.tributary.common.cli.UsageException;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.DependencyUnavailableException;
import io.tributary.launcher.ConfigOption;
import io.tributary.launcher.Tributary;
import io.tributary.localstack.GeneratedRecord;
import io.tributary.localstack.GeneratorOptions;
import io.tributary.localstack.ShopEventGenerator;
import io.tributary.localstack.ShopProducer;
import io.tributary.localstack.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code produce --config FILE [options]}: publishes the sample shop events to the configured Kafka. */
@Command(name = "produce", description = "Publishes sample shop events to the configured Kafka: orders (JSON) and"
    + " Debezium-style customer changes, spread over the last days, with the out-of-order, duplicate and malformed"
    + " records a real stream has.")
final class ProduceCommand implements Callable<Integer> {
  private static final GeneratorOptions DEFAULTS = GeneratorOptions.demo(Instant.EPOCH);

  @Mixin
  private ConfigOption config;

  @Option(names = "--orders", paramLabel = "N", description = "Order events (default " + "${DEFAULT-VALUE}).")
  private long orders = DEFAULTS.orders();

  @Option(names = "--customer-changes", paramLabel = "N", description = "Customer change events (default"
      + " ${DEFAULT-VALUE}).")
  private long customerChanges = DEFAULTS.customerChanges();

  @Option(names = "--customers", paramLabel = "N", description = "Distinct customers (default ${DEFAULT-VALUE}).")
  private int customers = DEFAULTS.customers();

  @Option(names = "--out-of-order", paramLabel = "F", description = "Fraction of changes sent after a later change"
      + " to the same key (default ${DEFAULT-VALUE}).")
  private double outOfOrder = DEFAULTS.outOfOrder();

  @Option(names = "--duplicates", paramLabel = "F", description = "Fraction sent twice (default ${DEFAULT-VALUE}).")
  private double duplicates = DEFAULTS.duplicates();

  @Option(names = "--malformed", paramLabel = "F", description = "Fraction that is not valid JSON (default"
      + " ${DEFAULT-VALUE}); silver quarantines them.")
  private double malformed = DEFAULTS.malformed();

  @Option(names = "--truncate", description = "End the customer changes with a truncate of the table.")
  private boolean truncate;

  @Option(names = "--days", paramLabel = "N", description = "Spread the events over the last N days (default"
      + " ${DEFAULT-VALUE}).")
  private long days = DEFAULTS.span().toDays();

  @Option(names = "--rate", paramLabel = "R", description = "Records per second; 0 (the default) sends as fast as"
      + " Kafka takes them.")
  private double rate;

  @Option(names = "--seed", paramLabel = "S", description = "Random seed: the same seed gives the same events"
      + " (default ${DEFAULT-VALUE}).")
  private long seed = DEFAULTS.seed();

  @Option(names = "--partitions", paramLabel = "N", description = "Partitions of topics this creates (default"
      + " ${DEFAULT-VALUE}).")
  private int partitions = 2;

  @Override
  public Integer call() {
    for (var fraction : List.of(Map.entry("out-of-order", outOfOrder), Map.entry("duplicates", duplicates),
        Map.entry("malformed", malformed))) {
      if (!(fraction.getValue() >= 0 && fraction.getValue() <= 1)) {
        throw new UsageException("'produce': --" + fraction.getKey() + " must be a fraction between 0 and 1, got "
            + fraction.getValue());
      }
    }
    if (!(rate >= 0 && Double.isFinite(rate))) {
      throw new UsageException("'produce': --rate must be records per second (0 = as fast as possible), got " + rate);
    }
    TributaryConfig loaded = config.load();
    Duration span = Duration.ofDays(days);
    GeneratorOptions options = new GeneratorOptions(orders, customerChanges, customers, outOfOrder, duplicates,
        malformed, truncate, Instant.now().minus(span), span, seed);
    System.out.println(produce(loaded, options, partitions, rate));
    return Tributary.OK;
  }

  static ShopProducer.Summary produce(TributaryConfig config, GeneratorOptions options, int partitions, double rate) {
    return produce(config, List.of(GeneratorOptions.ORDERS_TOPIC, GeneratorOptions.CUSTOMERS_TOPIC),
        ShopEventGenerator.records(options), partitions, rate);
  }

  /** Sends {@code records} after creating {@code topics} (those that do not exist yet). */
  static ShopProducer.Summary produce(TributaryConfig config, List<String> topics, Iterator<GeneratedRecord> records,
      int partitions, double rate) {
    String kafka = "Kafka at " + config.kafka().bootstrapServers() + " (tributary.kafka.bootstrap-servers)";
    try {
      Topics.create(config.kafka().clientProperties(), topics, partitions, Map.of());
    } catch (IllegalStateException e) {
      throw new DependencyUnavailableException(kafka + ": " + e.getMessage() + "; start the broker (bin/tributary"
          + " kafka start) or fix the address, and run again. Nothing was sent.", e);
    }
    try {
      return ShopProducer.send(config.kafka().clientProperties(), records, rate);
    } catch (IllegalStateException e) {
      // The records before the failure may be in Kafka: a second run adds a second copy of them, which bronze lands
      // as they are and silver's sequence guard makes harmless.
      throw new DependencyUnavailableException(kafka + ": " + e.getMessage(), e);
    }
  }
}
