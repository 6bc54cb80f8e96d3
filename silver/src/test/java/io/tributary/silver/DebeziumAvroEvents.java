package io.tributary.silver;

import io.apicurio.registry.utils.converter.avro.AvroData;
import io.debezium.data.Envelope;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * Debezium PostgreSQL change events of a {@code customers} table in Avro, made the way a Debezium connector with an
 * Avro converter makes them: Debezium's own {@link Envelope} builds the Connect record (with Debezium's semantic
 * types for the columns), Apicurio's {@link AvroData} turns Connect schema and value into Avro, and the Confluent
 * wire format frames it with the id the registry gave the writer schema. Version 2 of the table adds an
 * {@code email} column.
 */
final class DebeziumAvroEvents {
  /** Debezium PostgreSQL's source block (the fields the tests' events use). */
  static final Schema SOURCE = SchemaBuilder.struct().name("io.debezium.connector.postgresql.Source")
      .field("version", Schema.STRING_SCHEMA)
      .field("connector", Schema.STRING_SCHEMA)
      .field("name", Schema.STRING_SCHEMA)
      .field("ts_ms", Schema.INT64_SCHEMA)
      .field("snapshot", Schema.OPTIONAL_STRING_SCHEMA)
      .field("db", Schema.STRING_SCHEMA)
      .field("schema", Schema.STRING_SCHEMA)
      .field("table", Schema.STRING_SCHEMA)
      .field("txId", Schema.OPTIONAL_INT64_SCHEMA)
      .field("lsn", Schema.OPTIONAL_INT64_SCHEMA)
      .build();

  private final Envelope envelope;
  private final Schema row;
  private final org.apache.avro.Schema avroSchema;
  private final int schemaId;
  private final AvroData avroData = new AvroData(100);

  /** The table's first version, or its second (with {@code email}), registered with the registry. */
  DebeziumAvroEvents(int version, SchemaRegistryStandIn registry) {
    SchemaBuilder columns = SchemaBuilder.struct().name("shop.public.customers.Value")
        .field("id", Schema.INT64_SCHEMA)
        .field("name", Schema.OPTIONAL_STRING_SCHEMA)
        // NUMERIC(10,2): Debezium states the precision in the parameter the Avro converters read.
        .field("credit", Decimal.builder(2).parameter("connect.decimal.precision", "10").optional().build())
        .field("born", io.debezium.time.Date.builder().optional().build())
        .field("seen", io.debezium.time.MicroTimestamp.builder().optional().build());
    if (version >= 2) {
      columns.field("email", Schema.OPTIONAL_STRING_SCHEMA);
    }
    this.row = columns.optional().build();
    this.envelope = Envelope.defineSchema().withName("shop.public.customers.Envelope").withRecord(row)
        .withSource(SOURCE).build();
    this.avroSchema = avroData.fromConnectSchema(envelope.schema());
    this.schemaId = registry.register(avroSchema.toString());
  }

  int schemaId() {
    return schemaId;
  }

  /** A customer row; {@code email} only in version 2. */
  Struct customer(long id, String name, String credit, Integer bornEpochDay, Long seenMicros, String email) {
    Struct value = new Struct(row).put("id", id).put("name", name)
        .put("credit", credit == null ? null : new BigDecimal(credit)).put("born", bornEpochDay)
        .put("seen", seenMicros);
    if (row.field("email") != null) {
      value.put("email", email);
    }
    return value;
  }

  /** An insert ({@code c}), update ({@code u}), snapshot read ({@code r}) or delete ({@code d}) at an LSN. */
  byte[] change(String op, Struct before, Struct after, long lsn) {
    Struct source = new Struct(SOURCE).put("version", "3.6.1.Final").put("connector", "postgresql")
        .put("name", "shop").put("ts_ms", 1764504000000L + lsn).put("snapshot", op.equals("r") ? "true" : "false")
        .put("db", "shop").put("schema", "public").put("table", "customers").put("txId", 700 + lsn).put("lsn", lsn);
    Instant at = Instant.ofEpochMilli(1764504000000L + lsn);
    Struct value = switch (op) {
      case "c" -> envelope.create(after, source, at);
      case "r" -> envelope.read(after, source, at);
      case "u" -> envelope.update(before, after, source, at);
      case "d" -> envelope.delete(before, source, at);
      default -> throw new IllegalArgumentException(op);
    };
    return frame(schemaId, avroData.fromConnectData(envelope.schema(), value));
  }

  private byte[] frame(int id, Object avroValue) {
    return AvroRecords.frame(id, avroSchema, avroValue);
  }

  /** A value in the wire format naming {@code id}, with bytes that are not an Avro record of this schema. */
  static byte[] garbageUnder(int id) {
    ByteBuffer bytes = ByteBuffer.allocate(5 + 3).put((byte) 0).putInt(id).put(new byte[] {(byte) 0xff, 1, 2});
    return bytes.array();
  }
}
