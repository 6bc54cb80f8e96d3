package io.tributary.launcher;

import io.tributary.common.cli.Arguments;
import io.tributary.common.cli.UsageException;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.DependencyUnavailableException;
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
import java.util.Set;

/** {@code produce --config FILE [options]}: publishes the sample shop events to the configured Kafka. */
final class ProduceCommand implements Command {
  @Override
  public String name() {
    return "produce";
  }

  @Override
  public String usage() {
    return "--config FILE [--orders N] [--customer-changes N] [--customers N] [--out-of-order F] [--duplicates F]"
        + " [--malformed F] [--truncate] [--days N] [--rate R] [--seed S] [--partitions N]   publish sample shop events";
  }

  @Override
  public int run(List<String> argList) {
    Arguments args = Arguments.parse(name(), argList,
        Set.of("config", "orders", "customer-changes", "customers", "out-of-order", "duplicates", "malformed", "days",
            "rate", "seed", "partitions"),
        Set.of("truncate"));
    TributaryConfig config = ConfigOption.load(args);
    GeneratorOptions defaults = GeneratorOptions.demo(Instant.now());
    Duration span = Duration.ofDays(longOption(args, "days", defaults.span().toDays()));
    GeneratorOptions options = new GeneratorOptions(
        longOption(args, "orders", defaults.orders()),
        longOption(args, "customer-changes", defaults.customerChanges()),
        (int) longOption(args, "customers", defaults.customers()),
        fraction(args, "out-of-order", defaults.outOfOrder()),
        fraction(args, "duplicates", defaults.duplicates()),
        fraction(args, "malformed", defaults.malformed()),
        args.flag("truncate"),
        Instant.now().minus(span),
        span,
        longOption(args, "seed", defaults.seed()));
    System.out.println(produce(config, options, (int) longOption(args, "partitions", 2),
        rate(args)));
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

  private static double rate(Arguments args) {
    String text = args.value("rate").orElse("0");
    try {
      double rate = Double.parseDouble(text);
      if (rate >= 0 && Double.isFinite(rate)) {
        return rate;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new UsageException("'produce': --rate must be records per second (0 = as fast as possible), got '"
        + text + "'");
  }

  private static long longOption(Arguments args, String name, long fallback) {
    String text = args.value(name).orElse(null);
    if (text == null) {
      return fallback;
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new UsageException("'produce': --" + name + " must be a whole number, got '" + text + "'");
    }
  }

  private static double fraction(Arguments args, String name, double fallback) {
    String text = args.value(name).orElse(null);
    if (text == null) {
      return fallback;
    }
    try {
      double value = Double.parseDouble(text);
      if (value < 0 || value > 1) {
        throw new UsageException("'produce': --" + name + " must be a fraction between 0 and 1, got " + text);
      }
      return value;
    } catch (NumberFormatException e) {
      throw new UsageException("'produce': --" + name + " must be a fraction between 0 and 1, got '" + text + "'");
    }
  }
}
