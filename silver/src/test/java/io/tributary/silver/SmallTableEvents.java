package io.tributary.silver;

import io.debezium.data.Envelope;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;

/**
 * Debezium PostgreSQL change events (JSON converter, schemas enabled) of a small table {@code (id BIGINT primary key,
 * name STRING, qty INT)} of some schema, made with Debezium's {@link Envelope} as a connector makes them; a table
 * without a primary key has a null Kafka key.
 */
final class SmallTableEvents {
  /** The silver columns of the table, as the change stream states them. */
  static final String SPARK_COLUMNS = "id BIGINT, name STRING, qty INT";

  private final String topic;
  private final String schema;
  private final String table;
  private final Schema key;
  private final Schema row;
  private final Envelope envelope;
  private final JsonConverter values = new JsonConverter();
  private final JsonConverter keys = new JsonConverter();

  /** A table with a primary key, whose changes come on {@code topic} ({@code <prefix>.<schema>.<table>}). */
  static SmallTableEvents keyed(String topic) {
    return new SmallTableEvents(topic, true);
  }

  /** A table without a primary key. */
  static SmallTableEvents keyless(String topic) {
    return new SmallTableEvents(topic, false);
  }

  private SmallTableEvents(String topic, boolean keyed) {
    this.topic = topic;
    String[] parts = topic.split("\\.");
    this.schema = parts[parts.length - 2];
    this.table = parts[parts.length - 1];
    this.key = keyed ? SchemaBuilder.struct().name(topic + ".Key").field("id", Schema.INT64_SCHEMA).build() : null;
    this.row = SchemaBuilder.struct().name(topic + ".Value")
        .field("id", Schema.INT64_SCHEMA)
        .field("name", Schema.OPTIONAL_STRING_SCHEMA)
        .field("qty", Schema.OPTIONAL_INT32_SCHEMA)
        .optional().build();
    this.envelope = Envelope.defineSchema().withName(topic + ".Envelope").withRecord(row)
        .withSource(DebeziumAvroEvents.SOURCE).build();
    values.configure(Map.of("schemas.enable", "true"), false);
    keys.configure(Map.of("schemas.enable", "true"), true);
  }

  String topic() {
    return topic;
  }

  /** The Kafka key of row {@code id}; null for a table without a primary key. */
  byte[] key(long id) {
    return key == null ? null : keys.fromConnectData(topic, key, new Struct(key).put("id", id));
  }

  /** The Kafka key of {@code row} once the source table's primary key is {@code columns}. */
  byte[] key(Struct row, String... columns) {
    SchemaBuilder builder = SchemaBuilder.struct().name(topic + ".Key");
    for (String column : columns) {
      builder.field(column, this.row.field(column).schema());
    }
    Schema schema = builder.build();
    Struct key = new Struct(schema);
    for (String column : columns) {
      key.put(column, row.get(column));
    }
    return keys.fromConnectData(topic, schema, key);
  }

  Struct row(long id, String name, int qty) {
    return new Struct(row).put("id", id).put("name", name).put("qty", qty);
  }

  /** A change event: op r, c, u or d; {@code before} for u and d, {@code after} for r, c and u. */
  byte[] change(String op, Struct before, Struct after, long lsn) {
    Struct source = new Struct(DebeziumAvroEvents.SOURCE).put("version", "3.6.1.Final").put("connector", "postgresql")
        .put("name", "shop").put("ts_ms", 1764504000000L + lsn).put("db", "shop").put("schema", schema)
        .put("table", table).put("lsn", lsn);
    Instant at = Instant.ofEpochMilli(1764504000000L + lsn);
    Struct change = switch (op) {
      case "c" -> envelope.create(after, source, at);
      case "r" -> envelope.read(after, source, at);
      case "u" -> envelope.update(before, after, source, at);
      case "d" -> envelope.delete(before, source, at);
      default -> throw new IllegalArgumentException(op);
    };
    return values.fromConnectData(topic, envelope.schema(), change);
  }
}
