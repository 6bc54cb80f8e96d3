package io.tributary.localstack;

import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * The sample shop domain: {@code shop.orders} application events and {@code shop.customers} Debezium change events,
 * interleaved roughly in event-time order. Deterministic for a given seed.
 */
public final class ShopEventGenerator {
  private ShopEventGenerator() {}

  public static Iterator<GeneratedRecord> records(GeneratorOptions options) {
    return new Interleaved(new CustomerChanges(options), new OrderEvents(options));
  }

  /**
   * Debezium change events of a small {@code inventory} database with schema blocks, one topic per table
   * ({@code inventory.public.<table>}): what a database block onboards without a hand-written schema.
   */
  public static Iterator<GeneratedRecord> inventory(GeneratorOptions options) {
    return new InventoryChanges(options);
  }

  /** Only the order events, for load tests that want one topic of uniform JSON records. */
  public static Iterator<GeneratedRecord> orders(GeneratorOptions options) {
    return new OrderEvents(options);
  }

  /** Merges two streams by timestamp, keeping each stream's own order. */
  private static final class Interleaved implements Iterator<GeneratedRecord> {
    private final Iterator<GeneratedRecord> left;
    private final Iterator<GeneratedRecord> right;
    private GeneratedRecord nextLeft;
    private GeneratedRecord nextRight;

    Interleaved(Iterator<GeneratedRecord> left, Iterator<GeneratedRecord> right) {
      this.left = left;
      this.right = right;
    }

    @Override
    public boolean hasNext() {
      if (nextLeft == null && left.hasNext()) {
        nextLeft = left.next();
      }
      if (nextRight == null && right.hasNext()) {
        nextRight = right.next();
      }
      return nextLeft != null || nextRight != null;
    }

    @Override
    public GeneratedRecord next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      GeneratedRecord result;
      if (nextRight == null || (nextLeft != null && nextLeft.timestampMs() <= nextRight.timestampMs())) {
        result = nextLeft;
        nextLeft = null;
      } else {
        result = nextRight;
        nextRight = null;
      }
      return result;
    }
  }
}
