package io.tributary.localstack;

import io.tributary.localstack.DebeziumJsonTable.Column;
import io.tributary.localstack.GeneratedRecord.Kind;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Random;

/**
 * Debezium change events of a small {@code inventory} database, as the PostgreSQL connector publishes them with the
 * JSON converter and its default {@code schemas.enable = true}: every value and key carries its schema block, so
 * silver can take each table's columns and key from the stream, with no schema written by hand. Tables
 * {@code products}, {@code warehouses} and {@code stock} (a two-column key) are snapshot-read first, then change
 * (stock levels move, prices change, a product is deleted with its stock); in the last third of the span products
 * gain a {@code category} column and a {@code suppliers} table appears. Topics are
 * {@code inventory.public.<table>}. Deterministic for a given seed.
 */
final class InventoryChanges implements Iterator<GeneratedRecord> {
  private static final String[] PRODUCTS = {"kettle", "teapot", "mug", "whisk", "ladle", "sieve", "skillet", "tongs"};
  private static final String[] CITIES = {"Rotterdam", "Lyon", "Leipzig", "Porto"};
  private static final String[] CATEGORIES = {"cookware", "tableware", "utensils"};

  private static final DebeziumJsonTable PRODUCTS_V1 = table("products", Column.key("id", "int32"),
      Column.of("name", "string"), Column.decimal("price", 10, 2), Column.micros("updated_at"));
  private static final DebeziumJsonTable PRODUCTS_V2 = table("products", Column.key("id", "int32"),
      Column.of("name", "string"), Column.decimal("price", 10, 2), Column.micros("updated_at"),
      Column.of("category", "string"));
  private static final DebeziumJsonTable WAREHOUSES = table("warehouses", Column.key("id", "int32"),
      Column.of("city", "string"), Column.of("active", "boolean"));
  private static final DebeziumJsonTable STOCK = table("stock", Column.key("warehouse_id", "int32"),
      Column.key("product_id", "int32"), Column.of("quantity", "int32"), Column.micros("updated_at"));
  private static final DebeziumJsonTable SUPPLIERS = table("suppliers", Column.key("id", "int32"),
      Column.of("name", "string"), Column.of("country", "string"));

  private static DebeziumJsonTable table(String name, Column... columns) {
    return new DebeziumJsonTable("inventory", "public", name, List.of(columns));
  }

  private final GeneratorOptions options;
  private final Random random;
  private final List<GeneratedRecord> records = new ArrayList<>();
  private final Map<Integer, Map<String, Object>> products = new LinkedHashMap<>();
  private final Map<List<Integer>, Map<String, Object>> stock = new LinkedHashMap<>();
  private int next;
  private long lsn = 50_000;

  InventoryChanges(GeneratorOptions options) {
    this.options = options;
    this.random = new Random(options.seed() + 7);
    generate();
  }

  @Override
  public boolean hasNext() {
    return next < records.size();
  }

  @Override
  public GeneratedRecord next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return records.get(next++);
  }

  private void generate() {
    long start = options.start().toEpochMilli();
    long span = options.span().toMillis();
    for (int id = 1; id <= PRODUCTS.length; id++) {
      Map<String, Object> row = row("id", id, "name", PRODUCTS[id - 1], "price", price(), "updated_at", start * 1000);
      products.put(id, row);
      add(PRODUCTS_V1, "r", null, row, start);
    }
    for (int id = 1; id <= 3; id++) {
      add(WAREHOUSES, "r", null, row("id", id, "city", CITIES[id - 1], "active", true), start);
      for (int product = 1; product <= PRODUCTS.length; product++) {
        Map<String, Object> row = row("warehouse_id", id, "product_id", product, "quantity", random.nextInt(200),
            "updated_at", start * 1000);
        stock.put(List.of(id, product), row);
        add(STOCK, "r", null, row, start);
      }
    }
    int changes = 120;
    for (int i = 1; i <= changes; i++) {
      long at = start + span * i / (changes + 1);
      boolean late = i > changes * 2 / 3;
      DebeziumJsonTable productTable = late ? PRODUCTS_V2 : PRODUCTS_V1;
      if (i == changes / 2) {
        // A product leaves the range: its stock rows go first, then the product.
        int gone = 4;
        for (List<Integer> key : List.copyOf(stock.keySet())) {
          if (key.get(1) == gone) {
            add(STOCK, "d", stock.remove(key), null, at);
          }
        }
        add(productTable, "d", products.remove(gone), null, at);
      } else if (i == changes / 3) {
        add(WAREHOUSES, "c", null, row("id", 4, "city", CITIES[3], "active", true), at);
      } else if (late && i % 10 == 0) {
        int id = 1 + (i / 10) % 4;
        add(SUPPLIERS, "c", null, row("id", id, "name", "supplier " + id, "country", List.of("NL", "FR", "DE",
            "PT").get(id - 1)), at);
      } else if (i % 7 == 0 && !products.isEmpty()) {
        int id = List.copyOf(products.keySet()).get(random.nextInt(products.size()));
        Map<String, Object> before = products.get(id);
        Map<String, Object> after = new LinkedHashMap<>(before);
        after.put("price", price());
        after.put("updated_at", at * 1000);
        if (late) {
          after.put("category", CATEGORIES[id % CATEGORIES.length]);
        }
        products.put(id, after);
        add(productTable, "u", before, after, at);
      } else {
        List<Integer> key = List.copyOf(stock.keySet()).get(random.nextInt(stock.size()));
        Map<String, Object> before = stock.get(key);
        Map<String, Object> after = new LinkedHashMap<>(before);
        after.put("quantity", Math.max(0, (Integer) before.get("quantity") + random.nextInt(41) - 20));
        after.put("updated_at", at * 1000);
        stock.put(key, after);
        add(STOCK, "u", before, after, at);
      }
    }
  }

  private BigDecimal price() {
    return BigDecimal.valueOf(199 + random.nextInt(9800), 2);
  }

  private static Map<String, Object> row(Object... namesAndValues) {
    Map<String, Object> row = new LinkedHashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      row.put((String) namesAndValues[i], namesAndValues[i + 1]);
    }
    return row;
  }

  /** A change, and for a delete the Kafka tombstone after it. */
  private void add(DebeziumJsonTable table, String op, Map<String, Object> before, Map<String, Object> after,
      long at) {
    lsn += 8 + random.nextInt(40);
    byte[] key = table.key(after != null ? after : before);
    records.add(new GeneratedRecord(table.topic(), key, table.change(op, before, after, lsn, at), at, Kind.EVENT));
    if (op.equals("d")) {
      records.add(new GeneratedRecord(table.topic(), key, null, at, Kind.TOMBSTONE));
    }
  }

}
