package io.tributary.localstack;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.tributary.localstack.GeneratedRecord.Kind;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Random;

/**
 * Application events of an order service: {@code order_created}, then status changes (paid, shipped, delivered or
 * cancelled), as plain JSON keyed by order id. Each event carries the order's version ({@code seq}) and event time.
 */
final class OrderEvents implements Iterator<GeneratedRecord> {
  private static final String[] CURRENCIES = {"EUR", "USD", "GBP"};
  private static final String[] NEXT_STATUS = {"paid", "shipped", "delivered"};

  private record OpenOrder(String id, int customerId, String amount, String currency, int items, int seq) {}

  private final GeneratorOptions options;
  private final Random random;
  private final List<OpenOrder> open = new ArrayList<>();
  private final Deque<GeneratedRecord> ready = new ArrayDeque<>();
  private long produced;
  private long nextOrder = 1;

  OrderEvents(GeneratorOptions options) {
    this.options = options;
    this.random = new Random(options.seed() * 31 + 7);
  }

  @Override
  public boolean hasNext() {
    while (ready.isEmpty() && produced < options.orders()) {
      long timestamp = EventClock.at(options, produced, options.orders());
      produced++;
      if (open.isEmpty() || random.nextDouble() < 0.45) {
        create(timestamp);
      } else {
        advance(timestamp);
      }
      if (random.nextDouble() < options.malformed()) {
        ready.add(Malformed.order(random, timestamp));
      }
    }
    return !ready.isEmpty();
  }

  @Override
  public GeneratedRecord next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return ready.removeFirst();
  }

  private void create(long timestamp) {
    String id = String.format("o-%08d", nextOrder++);
    String amount = (5 + random.nextInt(495)) + "." + String.format("%02d", random.nextInt(100));
    OpenOrder order = new OpenOrder(id, 1 + random.nextInt(options.customers()), amount,
        CURRENCIES[random.nextInt(CURRENCIES.length)], 1 + random.nextInt(5), 1);
    open.add(order);
    deliver(order, "order_created", "created", timestamp);
  }

  private void advance(long timestamp) {
    int index = random.nextInt(open.size());
    OpenOrder order = open.get(index);
    OpenOrder next = new OpenOrder(order.id(), order.customerId(), order.amount(), order.currency(), order.items(),
        order.seq() + 1);
    String status;
    if (random.nextDouble() < 0.1) {
      status = "cancelled";
    } else {
      status = NEXT_STATUS[Math.min(order.seq() - 1, NEXT_STATUS.length - 1)];
    }
    if (status.equals("cancelled") || status.equals("delivered")) {
      open.remove(index);
    } else {
      open.set(index, next);
    }
    deliver(next, "order_" + status, status, timestamp);
  }

  private void deliver(OpenOrder order, String type, String status, long timestamp) {
    String value = "{\"event_type\":" + Json.string(type)
        + ",\"order_id\":" + Json.string(order.id())
        + ",\"customer_id\":" + order.customerId()
        + ",\"status\":" + Json.string(status)
        + ",\"amount\":" + Json.string(order.amount())
        + ",\"currency\":" + Json.string(order.currency())
        + ",\"items\":" + order.items()
        + ",\"seq\":" + order.seq()
        + ",\"event_time\":" + Json.string(Instant.ofEpochMilli(timestamp).toString())
        + "}";
    GeneratedRecord record = new GeneratedRecord(GeneratorOptions.ORDERS_TOPIC, order.id().getBytes(UTF_8),
        value.getBytes(UTF_8), timestamp, Kind.EVENT);
    ready.add(record);
    if (random.nextDouble() < options.duplicates()) {
      ready.add(new GeneratedRecord(record.topic(), record.key(), record.value(), timestamp, Kind.DUPLICATE));
    }
  }
}
