package io.tributary.silver;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.types.DataTypes;

/**
 * One Avro record in the Confluent wire format as JSON text, decoded by Apache Avro's {@link GenericDatumReader}
 * with its writer schema: logical types as their values (a decimal as a number, a date as {@code yyyy-MM-dd}, a
 * timestamp as an ISO instant), bytes in base64, unions as the branch's value, null fields left out. A SQL function,
 * so that a batch decodes each record once; null when the bytes are not a record of the schema, or when bytes are
 * left over after it (every byte of a value is accounted for, as for JSON).
 */
final class AvroJson {
  /** The SQL function: {@code tributary_avro_json(value, writer schema text)}. */
  static final String FUNCTION = "tributary_avro_json";

  private static final JsonFactory JSON = new JsonFactory();
  private static final Map<String, GenericDatumReader<Object>> READERS = new ConcurrentHashMap<>();
  private static final int HEADER = 5;

  private AvroJson() {}

  static synchronized void register(SparkSession spark) {
    if (!spark.catalog().functionExists(FUNCTION)) {
      spark.udf().register(FUNCTION, (UDF2<byte[], String, String>) AvroJson::json, DataTypes.StringType);
    }
  }

  /**
   * A writer schema from the registry. Names are not checked against Avro's rules: the binary encoding does not
   * depend on them, and real writers register names those rules refuse (Debezium names a record after its topic,
   * {@code app-1.public.items.Value}, unless {@code schema.name.adjustment.mode = avro}).
   *
   * @throws org.apache.avro.SchemaParseException when the text is not an Avro schema
   */
  static Schema parseWriterSchema(String text) {
    return new Schema.Parser(org.apache.avro.NameValidator.NO_VALIDATION).parse(text);
  }

  /** The record after the wire format's header, as JSON; null when the bytes are not one record of the schema. */
  static String json(byte[] value, String schema) {
    if (value == null || schema == null || value.length < HEADER) {
      return null;
    }
    GenericDatumReader<Object> reader = READERS.computeIfAbsent(schema,
        text -> new GenericDatumReader<>(parseWriterSchema(text)));
    try {
      BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(value, HEADER, value.length - HEADER, null);
      Object record = reader.read(null, decoder);
      if (!decoder.isEnd()) {
        return null;
      }
      StringWriter text = new StringWriter();
      try (JsonGenerator out = JSON.createGenerator(text)) {
        write(out, reader.getSchema(), record);
      }
      return text.toString();
    } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException | NegativeArraySizeException
        | ClassCastException e) {
      return null; // not a record of this schema: the decoder's check names the schema id
    }
  }

  private static void write(JsonGenerator out, Schema schema, Object value) throws IOException {
    if (value == null) {
      out.writeNull();
      return;
    }
    if (schema.getType() == Schema.Type.UNION) {
      write(out, schema.getTypes().get(GenericData.get().resolveUnion(schema, value)), value);
      return;
    }
    LogicalType logical = schema.getLogicalType();
    switch (schema.getType()) {
      case RECORD -> {
        GenericRecord record = (GenericRecord) value;
        out.writeStartObject();
        for (Schema.Field field : schema.getFields()) {
          Object fieldValue = record.get(field.pos());
          if (fieldValue != null) {
            out.writeFieldName(field.name());
            write(out, field.schema(), fieldValue);
          }
        }
        out.writeEndObject();
      }
      case ARRAY -> {
        out.writeStartArray();
        for (Object element : (Iterable<?>) value) {
          write(out, schema.getElementType(), element);
        }
        out.writeEndArray();
      }
      case MAP -> {
        out.writeStartObject();
        for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
          out.writeFieldName(entry.getKey().toString());
          write(out, schema.getValueType(), entry.getValue());
        }
        out.writeEndObject();
      }
      case BYTES, FIXED -> {
        byte[] bytes = value instanceof GenericFixed fixed ? fixed.bytes() : bytesOf((ByteBuffer) value);
        if (logical instanceof LogicalTypes.Decimal decimal) {
          out.writeNumber(new BigDecimal(new BigInteger(bytes), decimal.getScale()).toPlainString());
        } else {
          out.writeString(Base64.getEncoder().encodeToString(bytes));
        }
      }
      case INT -> {
        int number = (Integer) value;
        if (logical instanceof LogicalTypes.Date) {
          out.writeString(LocalDate.ofEpochDay(number).toString());
        } else {
          out.writeNumber(number);
        }
      }
      case LONG -> {
        long number = (Long) value;
        if (logical instanceof LogicalTypes.TimestampMillis) {
          out.writeString(Instant.ofEpochMilli(number).toString());
        } else if (logical instanceof LogicalTypes.TimestampMicros) {
          out.writeString(Instant.EPOCH.plusNanos(Math.multiplyExact(number, 1000L)).toString());
        } else if (logical instanceof LogicalTypes.LocalTimestampMillis) {
          out.writeString(LocalDateTime.ofEpochSecond(Math.floorDiv(number, 1000L),
              (int) Math.floorMod(number, 1000L) * 1_000_000, ZoneOffset.UTC).toString());
        } else if (logical instanceof LogicalTypes.LocalTimestampMicros) {
          out.writeString(LocalDateTime.ofEpochSecond(Math.floorDiv(number, 1_000_000L),
              (int) Math.floorMod(number, 1_000_000L) * 1000, ZoneOffset.UTC).toString());
        } else {
          out.writeNumber(number);
        }
      }
      case FLOAT -> out.writeNumber((Float) value);
      case DOUBLE -> out.writeNumber((Double) value);
      case BOOLEAN -> out.writeBoolean((Boolean) value);
      case STRING, ENUM -> out.writeString(value.toString());
      default -> out.writeNull();
    }
  }

  private static byte[] bytesOf(ByteBuffer buffer) {
    byte[] bytes = new byte[buffer.remaining()];
    buffer.duplicate().get(bytes);
    return bytes;
  }
}
