package io.tributary.localstack;

import java.time.Duration;
import java.time.Instant;

/**
 * What the shop generator produces.
 *
 * @param orders number of order events (creations and status changes)
 * @param customerChanges number of customer change events after the initial snapshot
 * @param customers key space of customers (ids 1..customers); all are snapshot-read first
 * @param outOfOrder fraction of customer updates delivered after a newer change of the same key
 * @param duplicates fraction of records delivered twice
 * @param malformed fraction of extra records that no decoder accepts
 * @param truncate whether a truncate event is emitted halfway through the customer changes
 * @param start event time of the first record
 * @param span event time covered by all records (spread evenly)
 * @param seed random seed: the same options give the same records
 */
public record GeneratorOptions(
    long orders,
    long customerChanges,
    int customers,
    double outOfOrder,
    double duplicates,
    double malformed,
    boolean truncate,
    Instant start,
    Duration span,
    long seed) {

  public static final String ORDERS_TOPIC = "shop.orders";
  public static final String CUSTOMERS_TOPIC = "shop.customers";

  public GeneratorOptions {
    requireFraction("out-of-order", outOfOrder);
    requireFraction("duplicates", duplicates);
    requireFraction("malformed", malformed);
    if (orders < 0 || customerChanges < 0) {
      throw new IllegalArgumentException("--orders and --customer-changes must not be negative");
    }
    if (customers <= 0) {
      throw new IllegalArgumentException("--customers must be positive, got " + customers);
    }
  }

  /** A small, clean default for the demo: a few days of orders from 50 customers. */
  public static GeneratorOptions demo(Instant now) {
    return new GeneratorOptions(2000, 400, 50, 0.2, 0.01, 0.005, false, now.minus(Duration.ofDays(3)),
        Duration.ofDays(3), 42);
  }

  private static void requireFraction(String name, double value) {
    if (value < 0 || value > 1) {
      throw new IllegalArgumentException("--" + name + " must be a fraction between 0 and 1, got " + value);
    }
  }
}
