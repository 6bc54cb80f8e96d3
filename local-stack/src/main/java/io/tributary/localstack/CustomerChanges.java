package io.tributary.localstack;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.tributary.localstack.GeneratedRecord.Kind;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Random;

/**
 * Debezium change events for a {@code customers} table, as the PostgreSQL connector publishes them with the JSON
 * converter (no schema): a snapshot read of every customer, then creates, updates and deletes, each delete followed
 * by a Kafka tombstone, optionally a truncate. Each change carries a strictly increasing {@code source.lsn}; a
 * fraction of updates is delivered late, after a newer change of the same key.
 */
final class CustomerChanges implements Iterator<GeneratedRecord> {
  private static final String[] NAMES = {"Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Leslie", "Frances"};
  private static final String[] COUNTRIES = {"DE", "FR", "NL", "US", "JP", "BR"};
  private static final String[] TIERS = {"bronze", "silver", "gold"};

  private final GeneratorOptions options;
  private final Random random;
  private final Map<Integer, String> alive = new HashMap<>();
  private final Map<Integer, GeneratedRecord> heldBack = new HashMap<>();
  private final Deque<GeneratedRecord> ready = new ArrayDeque<>();
  private final long total;
  private long produced;
  private long lsn = 10_000;
  private boolean truncated;

  CustomerChanges(GeneratorOptions options) {
    this.options = options;
    this.random = new Random(options.seed());
    this.total = options.customers() + options.customerChanges();
  }

  @Override
  public boolean hasNext() {
    fill();
    return !ready.isEmpty();
  }

  @Override
  public GeneratedRecord next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return ready.removeFirst();
  }

  private void fill() {
    while (ready.isEmpty() && produced < total) {
      long step = produced++;
      long timestamp = EventClock.at(options, step, total);
      if (step < options.customers()) {
        emit(change("r", (int) step + 1, timestamp, true), (int) step + 1, false);
      } else if (options.truncate() && !truncated && step >= options.customers() + options.customerChanges() / 2) {
        truncated = true;
        flushHeldBack();
        lsn += 10;
        alive.clear();
        ready.add(event(null, envelope("t", null, null, timestamp, false), timestamp));
      } else {
        int id = 1 + random.nextInt(options.customers());
        if (!alive.containsKey(id)) {
          emit(change("c", id, timestamp, false), id, false);
        } else if (random.nextDouble() < 0.15) {
          emit(change("d", id, timestamp, false), id, true);
        } else {
          emit(change("u", id, timestamp, false), id, false);
        }
      }
      if (random.nextDouble() < options.malformed()) {
        ready.add(Malformed.customerChange(random, timestamp));
      }
    }
    if (ready.isEmpty()) {
      flushHeldBack();
    }
  }

  private record Change(GeneratedRecord record, String op) {}

  private Change change(String op, int id, long timestamp, boolean snapshot) {
    lsn += 8 + random.nextInt(40);
    String before = alive.get(id);
    String after = null;
    if (!op.equals("d")) {
      after = customerRow(id, timestamp);
      alive.put(id, after);
    } else {
      alive.remove(id);
    }
    byte[] key = ("{\"id\":" + id + "}").getBytes(UTF_8);
    return new Change(event(key, envelope(op, op.equals("c") || op.equals("r") ? null : before, after, timestamp, snapshot),
        timestamp), op);
  }

  /** Delivers a change, possibly holding an update back until after the next change of the same key. */
  private void emit(Change change, int id, boolean delete) {
    GeneratedRecord late = heldBack.remove(id);
    if (late == null && change.op().equals("u") && random.nextDouble() < options.outOfOrder()) {
      heldBack.put(id, change.record());
      return;
    }
    deliver(change.record());
    if (delete) {
      // A late update of the deleted key arrives between the delete and its tombstone: the resurrection case.
      if (late != null) {
        deliver(late);
      }
      ready.add(new GeneratedRecord(GeneratorOptions.CUSTOMERS_TOPIC, change.record().key(), null,
          change.record().timestampMs(), Kind.TOMBSTONE));
    } else if (late != null) {
      deliver(late);
    }
  }

  private void deliver(GeneratedRecord record) {
    ready.add(record);
    if (random.nextDouble() < options.duplicates()) {
      ready.add(new GeneratedRecord(record.topic(), record.key(), record.value(), record.timestampMs(), Kind.DUPLICATE));
    }
  }

  private void flushHeldBack() {
    heldBack.values().forEach(this::deliver);
    heldBack.clear();
  }

  private GeneratedRecord event(byte[] key, String value, long timestamp) {
    return new GeneratedRecord(GeneratorOptions.CUSTOMERS_TOPIC, key, value.getBytes(UTF_8), timestamp, Kind.EVENT);
  }

  private String customerRow(int id, long timestamp) {
    String name = NAMES[random.nextInt(NAMES.length)] + " " + (char) ('A' + random.nextInt(26)) + ".";
    long createdMicros = (options.start().toEpochMilli() - 86_400_000L * (1 + id % 30)) * 1000;
    String creditLimit = (100 + random.nextInt(9900)) + "." + String.format("%02d", random.nextInt(100));
    return "{\"id\":" + id
        + ",\"name\":" + Json.string(name)
        + ",\"email\":" + Json.string("customer" + id + "@example.com")
        + ",\"country\":" + Json.string(COUNTRIES[random.nextInt(COUNTRIES.length)])
        + ",\"tier\":" + Json.string(TIERS[random.nextInt(TIERS.length)])
        + ",\"credit_limit\":" + Json.string(creditLimit)
        + ",\"created_at\":" + createdMicros
        + ",\"updated_at\":" + timestamp * 1000
        + "}";
  }

  private String envelope(String op, String before, String after, long timestamp, boolean snapshot) {
    return "{\"before\":" + (before == null ? "null" : before)
        + ",\"after\":" + (after == null ? "null" : after)
        + ",\"source\":{\"version\":\"3.6.1.Final\",\"connector\":\"postgresql\",\"name\":\"shop\""
        + ",\"ts_ms\":" + timestamp
        + ",\"snapshot\":" + Json.string(snapshot ? "true" : "false")
        + ",\"db\":\"shop\",\"schema\":\"public\",\"table\":\"customers\""
        + ",\"txId\":" + (lsn / 8)
        + ",\"lsn\":" + lsn
        + "}"
        + ",\"op\":" + Json.string(op)
        + ",\"ts_ms\":" + (timestamp + 3)
        + "}";
  }
}
