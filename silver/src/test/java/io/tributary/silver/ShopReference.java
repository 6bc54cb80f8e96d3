package io.tributary.silver;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tributary.localstack.GeneratedRecord;
import io.tributary.localstack.GeneratorOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * What the silver tables must hold for a generated shop stream, computed here without Spark by replaying the
 * well-formed events in sequence order, and the same views read from the silver tables for comparison.
 */
public final class ShopReference {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ShopReference() {}

  /** The customers table's contents after every change: live rows as id → column values. */
  public static Map<Long, List<String>> customers(List<GeneratedRecord> generated) {
    Map<Long, List<String>> state = new TreeMap<>();
    for (JsonNode change : customerChanges(generated)) {
      switch (change.path("op").asText()) {
        case "t" -> state.clear();
        case "d" -> state.remove(change.path("before").path("id").asLong());
        default -> state.put(change.path("after").path("id").asLong(), customerValues(change.path("after")));
      }
    }
    return state;
  }

  /** Live rows of a current-state customers table, in the form of {@link #customers}. */
  public static Map<Long, List<String>> liveCustomers(SparkSession spark, String table) {
    Map<Long, List<String>> rows = new TreeMap<>();
    for (Row row : spark.sql("SELECT id, name, email, country, tier, CAST(credit_limit AS STRING),"
        + " unix_micros(created_at), unix_micros(updated_at) FROM " + table + " WHERE NOT _is_deleted").collectAsList()) {
      rows.put(row.getLong(0), List.of(row.getString(1), row.getString(2), row.getString(3), row.getString(4),
          row.getString(5), String.valueOf(row.getLong(6)), String.valueOf(row.getLong(7))));
    }
    return rows;
  }

  /**
   * Every version of every customer (SCD2), as "id name op from-to[ current]" with times in epoch milliseconds of
   * the source: each change is valid from its source.ts_ms until the next change of the key by LSN. A truncate adds
   * a deleted version, with no values, to every key that had a version before it.
   */
  public static List<String> customerHistory(List<GeneratedRecord> generated) {
    List<JsonNode> changes = customerChanges(generated);
    Map<Long, TreeMap<Long, String[]>> versions = new TreeMap<>();
    for (JsonNode change : changes) {
      String op = change.path("op").asText();
      long lsn = change.path("source").path("lsn").asLong();
      String time = change.path("source").path("ts_ms").asText();
      if (op.equals("t")) {
        continue;
      }
      JsonNode image = op.equals("d") ? change.path("before") : change.path("after");
      versions.computeIfAbsent(image.path("id").asLong(), id -> new TreeMap<>())
          .put(lsn, new String[] {image.path("name").asText(), op, time});
    }
    for (JsonNode change : changes) {
      if (change.path("op").asText().equals("t")) {
        long lsn = change.path("source").path("lsn").asLong();
        String time = change.path("source").path("ts_ms").asText();
        for (TreeMap<Long, String[]> key : versions.values()) {
          if (key.firstKey() < lsn) {
            key.put(lsn, new String[] {"null", "t", time});
          }
        }
      }
    }
    List<String> rows = new ArrayList<>();
    versions.forEach((id, timeline) -> {
      List<String[]> ordered = new ArrayList<>(timeline.values());
      for (int i = 0; i < ordered.size(); i++) {
        String[] version = ordered.get(i);
        boolean last = i == ordered.size() - 1;
        rows.add(id + " " + version[0] + " " + version[1] + " " + version[2] + "-"
            + (last ? " current" : ordered.get(i + 1)[2]));
      }
    });
    return rows;
  }

  /** A history table in the form of {@link #customerHistory}. */
  public static List<String> customerHistory(SparkSession spark, String table) {
    List<String> rows = new ArrayList<>();
    for (Row row : spark.sql("SELECT id, name, _op, unix_millis(_valid_from), unix_millis(_valid_to), _is_current"
        + " FROM " + table + " ORDER BY id, _seq").collectAsList()) {
      rows.add(row.getLong(0) + " " + row.getString(1) + " " + row.getString(2) + " " + row.getLong(3) + "-"
          + (row.isNullAt(4) ? "" : row.getLong(4)) + (row.getBoolean(5) ? " current" : ""));
    }
    return rows;
  }

  /** Orders as order_id → values of the version with the highest seq. */
  public static Map<String, List<String>> orders(List<GeneratedRecord> generated) {
    Map<String, JsonNode> latest = new TreeMap<>();
    for (GeneratedRecord record : generated) {
      if (record.topic().equals(GeneratorOptions.ORDERS_TOPIC) && record.kind() == GeneratedRecord.Kind.EVENT) {
        JsonNode order = parse(record.value());
        latest.merge(order.path("order_id").asText(), order,
            (a, b) -> a.path("seq").asLong() >= b.path("seq").asLong() ? a : b);
      }
    }
    Map<String, List<String>> state = new TreeMap<>();
    latest.forEach((id, order) -> state.put(id, List.of(order.path("customer_id").asText(),
        order.path("status").asText(), new BigDecimal(order.path("amount").asText()).setScale(2).toPlainString(),
        order.path("currency").asText(), order.path("items").asText(), order.path("seq").asText(),
        String.valueOf(Instant.parse(order.path("event_time").asText()).toEpochMilli()))));
    return state;
  }

  /** An orders table in the form of {@link #orders}. */
  public static Map<String, List<String>> orders(SparkSession spark, String table) {
    Map<String, List<String>> rows = new TreeMap<>();
    for (Row row : spark.sql("SELECT order_id, customer_id, status, CAST(amount AS STRING), currency, items, seq,"
        + " unix_millis(event_time) FROM " + table + " WHERE NOT _is_deleted").collectAsList()) {
      rows.put(row.getString(0), List.of(String.valueOf(row.get(1)), row.getString(2), row.getString(3),
          row.getString(4), String.valueOf(row.get(5)), String.valueOf(row.get(6)), String.valueOf(row.getLong(7))));
    }
    return rows;
  }

  /** The well-formed customer changes (no duplicates, tombstones or malformed records) in LSN order. */
  private static List<JsonNode> customerChanges(List<GeneratedRecord> generated) {
    List<JsonNode> changes = new ArrayList<>();
    for (GeneratedRecord record : generated) {
      if (record.topic().equals(GeneratorOptions.CUSTOMERS_TOPIC) && record.kind() == GeneratedRecord.Kind.EVENT) {
        changes.add(parse(record.value()));
      }
    }
    changes.sort(Comparator.comparingLong(change -> change.path("source").path("lsn").asLong()));
    return changes;
  }

  private static List<String> customerValues(JsonNode after) {
    return List.of(after.path("name").asText(), after.path("email").asText(), after.path("country").asText(),
        after.path("tier").asText(), new BigDecimal(after.path("credit_limit").asText()).setScale(2).toPlainString(),
        after.path("created_at").asText(), after.path("updated_at").asText());
  }

  private static JsonNode parse(byte[] value) {
    try {
      return JSON.readTree(new String(value, UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
