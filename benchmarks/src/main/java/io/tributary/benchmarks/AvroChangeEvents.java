package io.tributary.benchmarks;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.List;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The benchmark's customer changes as Debezium's PostgreSQL connector writes them through the Avro converter: a key
 * record and an envelope whose row schema carries Connect's semantic names ({@code connect.name}), framed in the
 * Confluent wire format (byte 0, the registry's schema id, Avro binary). Written with Apache Avro's own writer. The
 * row values are those of the JSON variant, so both decoders see the same changes.
 */
final class AvroChangeEvents implements Serializable {
  static final String KEY_SCHEMA = """
      {"type":"record","name":"Key","namespace":"bench.public.customers","fields":[{"name":"id","type":"long"}],
       "connect.name":"bench.public.customers.Key"}""";
  private static final String ROW = """
      {"type":"record","name":"Value","namespace":"bench.public.customers","fields":[
        {"name":"id","type":"long"},
        {"name":"name","type":["null","string"],"default":null},
        {"name":"email","type":["null","string"],"default":null},
        {"name":"country","type":["null","string"],"default":null},
        {"name":"tier","type":["null","string"],"default":null},
        {"name":"credit_limit","type":["null",{"type":"bytes","scale":2,"precision":10,
          "connect.version":1,"connect.parameters":{"scale":"2","connect.decimal.precision":"10"},
          "connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}],"default":null},
        {"name":"created_at","type":["null",{"type":"long","connect.version":1,
          "connect.name":"io.debezium.time.MicroTimestamp"}],"default":null},
        {"name":"updated_at","type":["null",{"type":"long","connect.version":1,
          "connect.name":"io.debezium.time.MicroTimestamp"}],"default":null}],
       "connect.name":"bench.public.customers.Value"}""";
  static final String VALUE_SCHEMA = """
      {"type":"record","name":"Envelope","namespace":"bench.public.customers","fields":[
        {"name":"before","type":["null",%s],"default":null},
        {"name":"after","type":["null","Value"],"default":null},
        {"name":"source","type":{"type":"record","name":"Source","namespace":"io.debezium.connector.postgresql",
          "fields":[{"name":"version","type":"string"},{"name":"connector","type":"string"},
            {"name":"name","type":"string"},{"name":"ts_ms","type":"long"},{"name":"db","type":"string"},
            {"name":"schema","type":"string"},{"name":"table","type":"string"},
            {"name":"txId","type":["null","long"],"default":null},{"name":"lsn","type":["null","long"],"default":null}],
          "connect.name":"io.debezium.connector.postgresql.Source"}},
        {"name":"op","type":"string"},
        {"name":"ts_ms","type":["null","long"],"default":null}],
       "connect.name":"bench.public.customers.Envelope"}""".formatted(ROW);

  /** The columns {@link #encoder} writes: the input's {@code key_id} and {@code i}, and the framed key and value. */
  static final StructType FRAMED = new StructType().add("key_id", DataTypes.LongType).add("i", DataTypes.LongType)
      .add("key", DataTypes.BinaryType).add("value", DataTypes.BinaryType);

  private final int keyId;
  private final int valueId;

  AvroChangeEvents(int keyId, int valueId) {
    this.keyId = keyId;
    this.valueId = valueId;
  }

  /** Rows of {@code key_id, op, lsn, i} (the benchmark's changes) to {@link #FRAMED} rows. */
  MapPartitionsFunction<Row, Row> encoder() {
    return rows -> {
      Writer writer = new Writer();
      return new Iterator<Row>() {
        @Override
        public boolean hasNext() {
          return rows.hasNext();
        }

        @Override
        public Row next() {
          Row change = rows.next();
          long key = change.getLong(0);
          long i = change.getLong(3);
          return RowFactory.create(key, i, writer.key(key),
              writer.value(key, change.getString(1), change.getLong(2), i));
        }
      };
    };
  }

  /** One partition's schemas, records and encoder, reused for every change. */
  private final class Writer {
    private final Schema keySchema = new Schema.Parser().parse(KEY_SCHEMA);
    private final Schema envelope = new Schema.Parser().parse(VALUE_SCHEMA);
    private final Schema row = envelope.getField("after").schema().getTypes().get(1);
    private final Schema source = envelope.getField("source").schema();
    private final Schema decimal = row.getField("credit_limit").schema().getTypes().get(1);
    private final Conversions.DecimalConversion decimals = new Conversions.DecimalConversion();
    private final GenericDatumWriter<Object> keyWriter = new GenericDatumWriter<>(keySchema);
    private final GenericDatumWriter<Object> valueWriter = new GenericDatumWriter<>(envelope);
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(512);
    private BinaryEncoder encoder;

    byte[] key(long id) {
      GenericRecord key = new GenericData.Record(keySchema);
      key.put("id", id);
      return frame(keyId, keyWriter, key);
    }

    byte[] value(long id, String op, long lsn, long i) {
      GenericRecord image = new GenericData.Record(row);
      image.put("id", id);
      image.put("name", "name-" + id + "-" + i);
      image.put("email", "c" + id + "@example.com");
      image.put("country", List.of("BE", "NL", "DE", "FR").get((int) Math.floorMod(i, 4)));
      image.put("tier", List.of("bronze", "silver", "gold").get((int) Math.floorMod(i, 3)));
      image.put("credit_limit", decimals.toBytes(new BigDecimal((Math.floorMod(i, 9000) + 100) + ".50"), decimal,
          decimal.getLogicalType()));
      image.put("created_at", 1_700_000_000_000_000L + id);
      image.put("updated_at", 1_764_000_000_000_000L + i);
      GenericRecord from = new GenericData.Record(source);
      from.put("version", "3.6.1.Final");
      from.put("connector", "postgresql");
      from.put("name", "bench");
      from.put("ts_ms", 1_764_000_000_000L + i);
      from.put("db", "bench");
      from.put("schema", "public");
      from.put("table", "customers");
      from.put("lsn", lsn);
      GenericRecord change = new GenericData.Record(envelope);
      change.put("before", op.equals("u") || op.equals("d") ? image : null);
      change.put("after", op.equals("d") ? null : image);
      change.put("source", from);
      change.put("op", op);
      change.put("ts_ms", 1_764_000_000_000L + i);
      return frame(valueId, valueWriter, change);
    }

    private byte[] frame(int id, GenericDatumWriter<Object> writer, Object datum) {
      try {
        out.reset();
        out.write(0);
        out.write(ByteBuffer.allocate(4).putInt(id).array());
        encoder = EncoderFactory.get().binaryEncoder(out, encoder);
        writer.write(datum, encoder);
        encoder.flush();
        return out.toByteArray();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
