package io.tributary.silver;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/** Application records written with Apache Avro's own writer, framed in the Confluent wire format. */
final class AvroRecords {
  private AvroRecords() {}

  /** An order record of the test's Order schema. */
  static GenericRecord order(Schema schema, String id, String status, String amount, long seq, long eventTimeMs) {
    Schema decimal = schema.getField("amount").schema();
    GenericRecord record = new GenericData.Record(schema);
    record.put("order_id", id);
    record.put("status", status);
    record.put("amount", new Conversions.DecimalConversion().toBytes(new BigDecimal(amount), decimal,
        decimal.getLogicalType()));
    record.put("seq", seq);
    record.put("event_time", eventTimeMs);
    return record;
  }

  /** Byte 0, the schema id (4 bytes, big-endian), the Avro binary of the datum. */
  static byte[] frame(int id, Schema schema, Object datum) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.write(0);
      out.write(ByteBuffer.allocate(4).putInt(id).array());
      BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
      new GenericDatumWriter<Object>(schema).write(datum, encoder);
      encoder.flush();
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
