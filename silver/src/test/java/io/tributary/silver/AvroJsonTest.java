package io.tributary.silver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

class AvroJsonTest {
  /** A value schema as Debezium names it after a topic whose prefix has a hyphen (schema.name.adjustment.mode none). */
  private static final String HYPHENATED = "{\"type\":\"record\",\"name\":\"Value\",\"namespace\":"
      + "\"app-1.public.items\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},"
      + "{\"name\":\"name\",\"type\":[\"null\",\"string\"],\"default\":null}]}";

  @Test
  void aWriterSchemaWhoseNamesAvroRefusesIsStillRead() throws Exception {
    assertThatThrownBy(() -> new Schema.Parser().parse(HYPHENATED)).as("Avro's own rules")
        .isInstanceOf(SchemaParseException.class);

    Schema schema = AvroJson.parseWriterSchema(HYPHENATED);
    GenericRecord item = new GenericData.Record(schema);
    item.put("id", 7L);
    item.put("name", "seven");
    assertThat(AvroJson.json(framed(schema, item), HYPHENATED)).isEqualTo("{\"id\":7,\"name\":\"seven\"}");
  }

  @Test
  void textThatIsNotASchemaIsStillRefused() {
    assertThatThrownBy(() -> AvroJson.parseWriterSchema("{\"type\":\"record\"}"))
        .isInstanceOf(SchemaParseException.class);
  }

  /** The Confluent wire format: a zero byte, a 4-byte schema id, the Avro binary. */
  private static byte[] framed(Schema schema, GenericRecord record) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.write(new byte[] {0, 0, 0, 0, 1});
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
    new GenericDatumWriter<GenericRecord>(schema).write(record, encoder);
    encoder.flush();
    return bytes.toByteArray();
  }
}
