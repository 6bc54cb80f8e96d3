package io.tributary.silver;

import io.apicurio.registry.utils.converter.avro.AvroData;
import io.debezium.data.Envelope;
import io.debezium.data.VariableScaleDecimal;
import io.debezium.data.geometry.Geometry;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;

/**
 * Debezium PostgreSQL change events of an {@code inventory.public.items} table whose columns cover Debezium's
 * semantic types, made the way a connector makes them: Debezium's schema builders and {@link Envelope} build the
 * Connect records, and Kafka Connect's {@link JsonConverter} (schemas enabled, Debezium's default) or Apicurio's
 * {@link AvroData} (for the Confluent wire format) writes them. Version 2 of the table adds a {@code note} and a
 * {@code shipped} ({@code MicroTimestamp}) column; version 3 drops {@code note} and narrows {@code ratio} from a
 * double to a float.
 */
final class TypedTableEvents {
  static final Schema SOURCE = DebeziumAvroEvents.SOURCE;

  /** The Kafka key of the table: its primary key. */
  static final Schema KEY = SchemaBuilder.struct().name("inventory.public.items.Key")
      .field("id", Schema.INT64_SCHEMA).build();

  /** The Spark columns each semantic type maps to, in table order (version 1). */
  static final String SPARK_COLUMNS = "id BIGINT, name STRING, price DECIMAL(10,2), amount DECIMAL(38,18),"
      + " born DATE, created TIMESTAMP_NTZ, updated TIMESTAMP_NTZ, precise TIMESTAMP_NTZ, zoned TIMESTAMP,"
      + " opens STRING, closes STRING, doc STRING, uid STRING, status STRING, flags BINARY,"
      + " shape STRUCT<wkb: BINARY, srid: INT>, tags ARRAY<STRING>, small INT, ratio DOUBLE, active BOOLEAN,"
      + " instant TIMESTAMP, day DATE";

  private final int version;
  private final Schema row;
  private final Envelope envelope;
  private final JsonConverter json = new JsonConverter();
  private final JsonConverter jsonKeys = new JsonConverter();
  private final AvroData avroData = new AvroData(100);

  TypedTableEvents(int version) {
    this.version = version;
    SchemaBuilder columns = SchemaBuilder.struct().name("inventory.public.items.Value")
        .field("id", Schema.INT64_SCHEMA)
        .field("name", Schema.OPTIONAL_STRING_SCHEMA)
        .field("price", Decimal.builder(2).parameter("connect.decimal.precision", "10").optional().build())
        .field("amount", VariableScaleDecimal.builder().optional().build())
        .field("born", io.debezium.time.Date.builder().optional().build())
        .field("created", io.debezium.time.Timestamp.builder().optional().build())
        .field("updated", io.debezium.time.MicroTimestamp.builder().optional().build())
        .field("precise", io.debezium.time.NanoTimestamp.builder().optional().build())
        .field("zoned", io.debezium.time.ZonedTimestamp.builder().optional().build())
        .field("opens", io.debezium.time.MicroTime.builder().optional().build())
        .field("closes", io.debezium.time.Time.builder().optional().build())
        .field("doc", io.debezium.data.Json.builder().optional().build())
        .field("uid", io.debezium.data.Uuid.builder().optional().build())
        .field("status", io.debezium.data.Enum.builder("new,sold").optional().build())
        .field("flags", io.debezium.data.Bits.builder(8).optional().build())
        .field("shape", Geometry.builder().optional().build())
        .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
        .field("small", Schema.OPTIONAL_INT16_SCHEMA)
        // Version 3 narrows ratio to a float.
        .field("ratio", version >= 3 ? Schema.OPTIONAL_FLOAT32_SCHEMA : Schema.OPTIONAL_FLOAT64_SCHEMA)
        .field("active", Schema.OPTIONAL_BOOLEAN_SCHEMA)
        .field("instant", org.apache.kafka.connect.data.Timestamp.builder().optional().build())
        .field("day", org.apache.kafka.connect.data.Date.builder().optional().build());
    if (version == 2) {
      columns.field("note", Schema.OPTIONAL_STRING_SCHEMA); // version 3 drops it again
    }
    if (version >= 2) {
      columns.field("shipped", io.debezium.time.MicroTimestamp.builder().optional().build());
    }
    this.row = columns.optional().build();
    this.envelope = Envelope.defineSchema().withName("inventory.public.items.Envelope").withRecord(row)
        .withSource(SOURCE).build();
    json.configure(Map.of("schemas.enable", "true"), false);
    jsonKeys.configure(Map.of("schemas.enable", "true"), true);
  }

  int version() {
    return version;
  }

  /** The envelope's Connect schema. */
  Schema envelopeSchema() {
    return envelope.schema();
  }

  /** The envelope's schema as an Avro converter writes it. */
  org.apache.avro.Schema avroSchema() {
    return avroData.fromConnectSchema(envelope.schema());
  }

  org.apache.avro.Schema avroKeySchema() {
    return avroData.fromConnectSchema(KEY);
  }

  /** The envelope's schema block as the JSON converter writes it. */
  String jsonSchemaBlock() {
    return json.asJsonSchema(envelope.schema()).toString();
  }

  String jsonKeySchemaBlock() {
    return jsonKeys.asJsonSchema(KEY).toString();
  }

  /**
   * Item {@code id} with every column set from {@code n} (so each item's values differ): see
   * {@link #expectedRow} for the values silver must hold.
   */
  Struct item(long id, int n) {
    Struct value = new Struct(row).put("id", id).put("name", "item " + n + " ü€")
        .put("price", new BigDecimal(n + ".25"))
        .put("amount", VariableScaleDecimal.fromLogical(row.field("amount").schema(), new BigDecimal("-" + n + ".125")))
        .put("born", 19_000 + n)
        .put("created", 1_700_000_000_123L + n)
        .put("updated", 1_700_000_000_123_456L + n)
        .put("precise", 1_700_000_000_123_456_789L + n)
        .put("zoned", "2024-03-0" + (1 + n % 9) + "T10:15:30.123456+02:00")
        .put("opens", 8L * 3_600_000_000L + n)
        .put("closes", 17 * 3_600_000 + 30 * 60_000 + n)
        .put("doc", "{\"n\": " + n + "}")
        .put("uid", "00000000-0000-0000-0000-00000000000" + (n % 10))
        .put("status", n % 2 == 0 ? "new" : "sold")
        .put("flags", new byte[] {(byte) n})
        .put("shape", Geometry.createValue(row.field("shape").schema(), new byte[] {1, 1, 0, 0, 0, (byte) n}, 4326))
        .put("tags", List.of("t" + n, "ü"))
        .put("small", (short) n)
        .put("ratio", version >= 3 ? (Object) (float) (n / 4.0) : (Object) (n / 4.0))
        .put("active", n % 2 == 0)
        .put("instant", java.util.Date.from(Instant.ofEpochMilli(1_700_000_000_000L + n)))
        .put("day", java.util.Date.from(Instant.ofEpochSecond((19_500L + n) * 86_400)));
    if (row.field("note") != null) {
      value.put("note", "note " + n);
    }
    if (row.field("shipped") != null) {
      value.put("shipped", 1_764_504_000_000_000L + n);
    }
    return value;
  }

  /**
   * The silver columns of {@link #item} as Java values ({@link #normalized} turns what Spark returns into the same
   * forms): instants for TIMESTAMP, local date-times for TIMESTAMP_NTZ, local dates for DATE.
   */
  static Map<String, Object> expected(long id, int n) {
    Map<String, Object> columns = new java.util.LinkedHashMap<>();
    columns.put("id", id);
    columns.put("name", "item " + n + " ü€");
    columns.put("price", new BigDecimal(n + ".25"));
    columns.put("amount", new BigDecimal("-" + n + ".125").setScale(18));
    columns.put("born", java.time.LocalDate.ofEpochDay(19_000 + n));
    java.time.LocalDateTime epoch = java.time.LocalDateTime.of(1970, 1, 1, 0, 0);
    columns.put("created", epoch.plus(java.time.Duration.ofMillis(1_700_000_000_123L + n)));
    columns.put("updated", epoch.plus(java.time.Duration.ofNanos((1_700_000_000_123_456L + n) * 1000)));
    // Nanoseconds are cut to Spark's microseconds.
    columns.put("precise", epoch.plus(java.time.Duration.ofNanos((1_700_000_000_123_456_789L + n) / 1000 * 1000)));
    columns.put("zoned", Instant.parse("2024-03-0" + (1 + n % 9) + "T08:15:30.123456Z"));
    columns.put("opens", String.format("08:00:00.%06d", n));
    columns.put("closes", String.format("17:30:00.%03d000", n));
    columns.put("doc", "{\"n\": " + n + "}");
    columns.put("uid", "00000000-0000-0000-0000-00000000000" + (n % 10));
    columns.put("status", n % 2 == 0 ? "new" : "sold");
    columns.put("flags", List.of((byte) n));
    columns.put("shape", List.of(List.of((byte) 1, (byte) 1, (byte) 0, (byte) 0, (byte) 0, (byte) n), 4326));
    columns.put("tags", List.of("t" + n, "ü"));
    columns.put("small", n);
    columns.put("ratio", n / 4.0);
    columns.put("active", n % 2 == 0);
    columns.put("instant", Instant.ofEpochMilli(1_700_000_000_000L + n));
    columns.put("day", java.time.LocalDate.ofEpochDay(19_500L + n));
    return columns;
  }

  /** {@link #expected} of a version 2 item. */
  static Map<String, Object> expectedV2(long id, int n) {
    Map<String, Object> columns = expected(id, n);
    columns.put("note", "note " + n);
    columns.put("shipped", java.time.LocalDateTime.of(1970, 1, 1, 0, 0)
        .plus(java.time.Duration.ofNanos((1_764_504_000_000_000L + n) * 1000)));
    return columns;
  }

  /** A value Spark returned, in the form {@link #expected} uses. */
  static Object normalized(Object value) {
    if (value instanceof java.sql.Timestamp timestamp) {
      return timestamp.toInstant();
    }
    if (value instanceof java.sql.Date date) {
      return date.toLocalDate();
    }
    if (value instanceof byte[] bytes) {
      List<Byte> list = new java.util.ArrayList<>();
      for (byte b : bytes) {
        list.add(b);
      }
      return list;
    }
    if (value instanceof org.apache.spark.sql.Row struct) {
      List<Object> fields = new java.util.ArrayList<>();
      for (int i = 0; i < struct.length(); i++) {
        fields.add(normalized(struct.get(i)));
      }
      return fields;
    }
    if (value instanceof scala.collection.Seq<?> seq) {
      return scala.jdk.javaapi.CollectionConverters.asJava(seq).stream().map(TypedTableEvents::normalized).toList();
    }
    return value;
  }

  /** A change: insert {@code c}, snapshot read {@code r}, update {@code u} or delete {@code d}, at an LSN. */
  Struct change(String op, Struct before, Struct after, long lsn) {
    Struct source = new Struct(SOURCE).put("version", "3.6.1.Final").put("connector", "postgresql")
        .put("name", "inventory").put("ts_ms", 1764504000000L + lsn).put("db", "inventory").put("schema", "public")
        .put("table", "items").put("lsn", lsn);
    Instant at = Instant.ofEpochMilli(1764504000000L + lsn);
    return switch (op) {
      case "c" -> envelope.create(after, source, at);
      case "r" -> envelope.read(after, source, at);
      case "u" -> envelope.update(before, after, source, at);
      case "d" -> envelope.delete(before, source, at);
      default -> throw new IllegalArgumentException(op);
    };
  }

  /** A change as the JSON converter writes it (schema and payload). */
  byte[] json(Struct change) {
    return json.fromConnectData("inventory.public.items", envelope.schema(), change);
  }

  /** A change as the JSON converter writes it with schemas.enable = false (payload only). */
  byte[] jsonWithoutSchema(Struct change) {
    JsonConverter plain = new JsonConverter();
    plain.configure(Map.of("schemas.enable", "false"), false);
    return plain.fromConnectData("inventory.public.items", envelope.schema(), change);
  }

  byte[] jsonKey(long id) {
    return jsonKeys.fromConnectData("inventory.public.items", KEY, new Struct(KEY).put("id", id));
  }

  /** A change in Avro, in the wire format under writer schema {@code schemaId}. */
  byte[] avro(Struct change, int schemaId) {
    return AvroRecords.frame(schemaId, avroSchema(), avroData.fromConnectData(envelope.schema(), change));
  }

  byte[] avroKey(long id, int keySchemaId) {
    return AvroRecords.frame(keySchemaId, avroKeySchema(),
        avroData.fromConnectData(KEY, new Struct(KEY).put("id", id)));
  }

  static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
