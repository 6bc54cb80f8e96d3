package io.tributary.silver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.util.Base64;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** Columns from the schema a change stream carries: the JSON converter's schema block and an Avro writer schema. */
class SemanticTypesTest {
  private static final String TABLE = "lake.silver.items";

  @Test
  void jsonSchemaBlockGivesEverySemanticTypeItsColumnType() {
    TypedTableEvents events = new TypedTableEvents(1);
    StreamColumns columns = StreamColumns.ofEnvelope(ConnectType.ofJson(events.jsonSchemaBlock())).orElseThrow();
    assertThat(columns.schema(TABLE).toDDL()).isEqualTo(StructType.fromDDL(TypedTableEvents.SPARK_COLUMNS).toDDL());
  }

  @Test
  void avroWriterSchemaGivesTheSameColumnsAsJson() {
    TypedTableEvents events = new TypedTableEvents(2);
    StreamColumns fromAvro = StreamColumns.ofEnvelope(ConnectType.ofAvro(events.avroSchema())).orElseThrow();
    StreamColumns fromJson = StreamColumns.ofEnvelope(ConnectType.ofJson(events.jsonSchemaBlock())).orElseThrow();
    assertThat(fromAvro.schema(TABLE).toDDL()).isEqualTo(fromJson.schema(TABLE).toDDL())
        .isEqualTo(StructType.fromDDL(TypedTableEvents.SPARK_COLUMNS + ", note STRING, shipped TIMESTAMP_NTZ").toDDL());
    // The Avro converter writes Connect's decimal as Avro's decimal, which the decoder writes as a number.
    assertThat(ConnectType.ofAvro(events.avroSchema()).field("after").orElseThrow().field("price").orElseThrow()
        .avroLogical()).isEqualTo("decimal");
  }

  @Test
  void keyColumnsComeFromTheKeySchema() {
    TypedTableEvents events = new TypedTableEvents(1);
    assertThat(StreamColumns.keyOf(ConnectType.ofJson(events.jsonKeySchemaBlock()))).containsExactly("id");
    assertThat(StreamColumns.keyOf(ConnectType.ofAvro(events.avroKeySchema()))).containsExactly("id");
    Schema compound = SchemaBuilder.struct().field("tenant", Schema.STRING_SCHEMA).field("id", Schema.INT32_SCHEMA)
        .build();
    assertThat(StreamColumns.keyOf(ConnectType.ofJson(jsonSchema(compound, true)))).containsExactly("tenant", "id");
  }

  @Test
  void decimalBeyondThirtyEightDigitsFailsNamingTableAndField() {
    Schema wide = SchemaBuilder.struct().field("total", Decimal.builder(4)
        .parameter("connect.decimal.precision", "65").build()).optional().build();
    assertThatThrownBy(() -> columnsOf(wide).schema(TABLE))
        .isInstanceOf(UnmappableTypeException.class)
        .hasMessageContaining("lake.silver.items, field total: a decimal of precision 65 (scale 4)");
  }

  @Test
  void temporalTypesInsideArraysAndMapsWithNumberKeysFailNamingTheField() {
    Schema dates = SchemaBuilder.struct().field("holidays",
        SchemaBuilder.array(io.debezium.time.Date.schema()).build()).optional().build();
    assertThatThrownBy(() -> columnsOf(dates).schema(TABLE))
        .hasMessageContaining("field holidays[]: io.debezium.time.Date inside a struct, array or map");
    Schema counts = SchemaBuilder.struct().field("counts",
        SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.INT64_SCHEMA).build()).optional().build();
    assertThatThrownBy(() -> columnsOf(counts).schema(TABLE))
        .hasMessageContaining("field counts: a map whose keys are int32");
  }

  @Test
  void connectDecimalIsReadFromItsUnscaledBytes() {
    assertThat(SemanticTypes.connectDecimal(unscaled("-123456"), 2)).isEqualTo("-1234.56");
    assertThat(SemanticTypes.connectDecimal(unscaled("99999999999999999999999999999999999999"), 0))
        .isEqualTo("99999999999999999999999999999999999999");
    assertThat(SemanticTypes.connectDecimal("not base64!", 2)).isNull();
  }

  @Test
  void variableScaleDecimalKeepsItsDigitsOrIsRefused() {
    assertThat(SemanticTypes.variableDecimal("{\"scale\": 3, \"value\": \"" + unscaled("-1125") + "\"}"))
        .isEqualTo("-1.125");
    // 19 digits after the point do not fit DECIMAL(38, 18): refused, not rounded.
    assertThat(SemanticTypes.variableDecimal("{\"scale\": 19, \"value\": \"" + unscaled("1234567890123456789")
        + "\"}")).isNull();
    // Trailing zeros beyond the scale are not digits lost.
    assertThat(SemanticTypes.variableDecimal("{\"scale\": 20, \"value\": \"" + unscaled("500") + "\"}"))
        .isEqualTo("0.000000000000000005");
    assertThat(SemanticTypes.variableDecimal("{\"scale\": 0, \"value\": \"" + unscaled("1" + "0".repeat(20))
        + "\"}")).isNull();
  }

  private static StreamColumns columnsOf(Schema value) {
    Schema envelope = io.debezium.data.Envelope.defineSchema().withName("t.Envelope").withRecord(value)
        .withSource(TypedTableEvents.SOURCE).build().schema();
    return StreamColumns.ofEnvelope(ConnectType.ofJson(jsonSchema(envelope, false))).orElseThrow();
  }

  private static String jsonSchema(Schema schema, boolean isKey) {
    JsonConverter converter = new JsonConverter();
    converter.configure(java.util.Map.of("schemas.enable", "true"), isKey);
    return converter.asJsonSchema(schema).toString();
  }

  private static String unscaled(String digits) {
    return Base64.getEncoder().encodeToString(new BigInteger(digits).toByteArray());
  }
}
