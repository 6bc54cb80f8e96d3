package io.tributary.silver;

import static io.tributary.silver.ChangeDecoder.SchemaSource.CONFIG;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.config.SilverEntity.SchemaEvolution;
import io.tributary.common.testing.SharedSpark;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Each decoder on hand-written records: what it accepts, how it reads values, and the reason it gives otherwise. */
@ExtendWith(SharedSpark.class)
class DecodersIT {
  static final StructType BRONZE = StructType.fromDDL("topic STRING, partition INT, offset BIGINT,"
      + " kafka_timestamp TIMESTAMP, key BINARY, value BINARY, headers ARRAY<STRUCT<key: STRING, value: BINARY>>,"
      + " ingested_at TIMESTAMP");
  private static final StructType PEOPLE = StructType.fromDDL("id BIGINT, name STRING, credit DECIMAL(10,2),"
      + " age INT, born DATE, seen TIMESTAMP, address STRUCT<city: STRING>");
  private static final Timestamp KAFKA_TIME = Timestamp.valueOf("2026-11-30 12:00:00");

  static Dataset<Row> bronze(SparkSession spark, byte[]... values) {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      rows.add(RowFactory.create("t", 0, (long) i, KAFKA_TIME, null, values[i], null, KAFKA_TIME));
    }
    return spark.createDataFrame(rows, BRONZE);
  }

  private static List<Row> decode(ChangeDecoder decoder, SchemaEvolution policy, Dataset<Row> bronze) {
    return new EntityRows(PEOPLE, List.of("id"), policy, StreamVersions.none("people"))
        .decode(decoder.envelopes(bronze)).orderBy("offset")
        .selectExpr("op", "seq", "ts_ms", "to_json(row)", "unknown_fields", "widen", "tombstone", "error", "stage")
        .collectAsList();
  }

  private static byte[] utf8(String text) {
    return text.getBytes(UTF_8);
  }

  @Test
  void debeziumEnvelopesWithAndWithoutTheSchemaWrapper(SparkSession spark) {
    String after = "{\"id\":7,\"name\":\"Ann\",\"credit\":\"12.50\",\"age\":41,\"born\":19000,"
        + "\"seen\":1764504000000000,\"address\":{\"city\":\"Ghent\"}}";
    String plain = "{\"before\":null,\"after\":" + after + ",\"source\":{\"lsn\":100,\"ts_ms\":1764504000000},"
        + "\"op\":\"c\",\"ts_ms\":1764504000123}";
    String wrapped = "{\"schema\":{\"type\":\"struct\"},\"payload\":" + plain.replace("\"op\":\"c\"", "\"op\":\"r\"")
        .replace("\"lsn\":100", "\"lsn\":101").replace("\"credit\":\"12.50\"", "\"credit\":12.5")
        .replace("\"seen\":1764504000000000", "\"seen\":\"2025-11-30T12:00:00Z\"").replace("\"born\":19000",
            "\"born\":\"2022-01-08\"") + "}";
    String delete = "{\"before\":{\"id\":7,\"name\":\"Ann\"},\"after\":null,\"source\":{\"lsn\":102,\"ts_ms\":5},"
        + "\"op\":\"d\",\"ts_ms\":6}";
    String truncate = "{\"before\":null,\"after\":null,\"source\":{\"lsn\":103,\"ts_ms\":7},\"op\":\"t\",\"ts_ms\":8}";
    List<Row> rows = decode(new DebeziumJsonDecoder(List.of("source.lsn"), CONFIG), SchemaEvolution.EVOLVE,
        bronze(spark, utf8(plain), utf8(wrapped), utf8(delete), null, utf8(truncate)));

    String image = "{\"id\":7,\"name\":\"Ann\",\"credit\":12.50,\"age\":41,\"born\":\"2022-01-08\","
        + "\"seen\":\"2025-11-30T12:00:00.000Z\",\"address\":{\"city\":\"Ghent\"}}";
    assertThat(rows.get(0).getString(0)).isEqualTo("c");
    assertThat(rows.get(0).getList(1)).containsExactly(100L);
    assertThat(rows.get(0).getLong(2)).as("source.ts_ms").isEqualTo(1764504000000L);
    assertThat(rows.get(0).getString(3)).isEqualTo(image);
    assertThat(rows.get(0).isNullAt(7)).isTrue();
    assertThat(rows.get(1).getString(0)).isEqualTo("r");
    assertThat(rows.get(1).getString(3)).as("number decimal, ISO timestamp and date").isEqualTo(image);
    assertThat(rows.get(2).getString(0)).isEqualTo("d");
    assertThat(rows.get(2).getString(3)).as("a delete carries its before image").contains("\"id\":7");
    assertThat(rows.get(3).getBoolean(6)).as("tombstone").isTrue();
    assertThat(rows.get(3).isNullAt(7)).isTrue();
    assertThat(rows.get(4).getString(0)).isEqualTo("t");
    assertThat(rows.get(4).isNullAt(7)).isTrue();
  }

  @Test
  void debeziumRecordsThatCannotBeAppliedSayWhy(SparkSession spark) {
    String ok = "\"source\":{\"lsn\":1,\"ts_ms\":1},\"ts_ms\":1";
    List<Row> rows = decode(new DebeziumJsonDecoder(List.of("source.lsn"), CONFIG), SchemaEvolution.QUARANTINE, bronze(spark,
        new byte[] {(byte) 0xff, (byte) 0xfe},
        utf8("{\"op\":\"c\""),
        utf8("{\"after\":{\"id\":1}," + ok + "}"),
        utf8("{\"op\":\"x\",\"after\":{\"id\":1}," + ok + "}"),
        utf8("{\"op\":\"c\",\"after\":{\"id\":1},\"source\":{\"ts_ms\":1}}"),
        utf8("{\"op\":\"c\",\"after\":{\"id\":1},\"source\":{\"lsn\":\"soon\"}}"),
        utf8("{\"op\":\"u\",\"after\":null," + ok + "}"),
        utf8("{\"op\":\"c\",\"after\":{\"name\":\"no id\"}," + ok + "}"),
        utf8("{\"op\":\"c\",\"after\":{\"id\":1,\"credit\":\"lots\"}," + ok + "}"),
        utf8("{\"op\":\"c\",\"after\":{\"id\":1,\"mood\":\"happy\",\"address\":{\"zip\":\"9000\"}}," + ok + "}")));
    assertThat(rows.stream().map(row -> row.getString(7) + " @" + row.getString(8))).containsExactly(
        "value is not valid UTF-8 @decode",
        "value is not valid JSON @decode",
        "missing op @decode",
        "unknown op 'x' @decode",
        "missing sequence source.lsn @decode",
        "sequence source.lsn: 'soon' is not an integer or an ISO timestamp @decode",
        "missing after image @decode",
        "missing key column id @schema",
        "column credit: 'lots' is not a decimal(10,2) @schema",
        "unknown field mood, address.zip (schema-evolution = quarantine) @schema");
  }

  @Test
  void plainJsonEventsWithAnOpFieldAndATimestampSequence(SparkSession spark) {
    JsonEventDecoder decoder = new JsonEventDecoder(List.of("version", "at"), Optional.of("kind"),
        List.of("person_deleted"), Optional.of("at"));
    List<Row> rows = decode(decoder, SchemaEvolution.EVOLVE, bronze(spark,
        utf8("{\"kind\":\"person_saved\",\"version\":3,\"at\":\"2026-11-30T10:00:00Z\",\"id\":5,\"name\":\"Bo\"}"),
        utf8("{\"kind\":\"person_deleted\",\"version\":4,\"at\":\"2026-11-30T11:00:00Z\",\"id\":5}"),
        utf8("{\"kind\":\"person_saved\",\"at\":\"2026-11-30T10:00:00Z\",\"id\":6}"),
        utf8("{\"kind\":\"person_saved\",\"version\":1,\"id\":6}"),
        utf8("[1, 2]"),
        utf8("{\"version\":1,\"at\":\"2026-11-30T10:00:00Z\",\"id\":6}")));
    assertThat(rows.get(0).getString(0)).isEqualTo("u");
    assertThat(rows.get(0).getList(1)).containsExactly(3L, 1796032800000000L);
    assertThat(rows.get(0).getLong(2)).isEqualTo(1796032800000L);
    assertThat(rows.get(0).getString(3)).isEqualTo("{\"id\":5,\"name\":\"Bo\"}");
    assertThat(rows.get(0).getList(4)).as("fields of the event envelope are unknown to the schema")
        .containsExactly("kind", "version", "at");
    assertThat(rows.get(1).getString(0)).isEqualTo("d");
    assertThat(rows.get(1).isNullAt(7)).isTrue();
    assertThat(rows.get(2).getString(7)).isEqualTo("missing sequence version");
    assertThat(rows.get(3).getString(7)).isEqualTo("missing sequence at");
    assertThat(rows.get(4).getString(7)).isEqualTo("value is not a JSON object");
    assertThat(rows.get(5).getString(7)).isEqualTo("missing op field kind");
  }

  @Test
  void latestWinsWithoutSequenceAndWideningCandidates(SparkSession spark) {
    JsonEventDecoder decoder = new JsonEventDecoder(List.of(), Optional.empty(), List.of("d"), Optional.empty());
    List<Row> rows = decode(decoder, SchemaEvolution.IGNORE, bronze(spark,
        utf8("{\"id\":1,\"age\":3000000000,\"extra\":true}"),
        utf8("{\"id\":2,\"age\":30}")));
    assertThat(rows.get(0).getList(1)).isEmpty();
    assertThat(rows.get(0).getLong(2)).isEqualTo(KAFKA_TIME.getTime());
    assertThat(rows.get(0).getList(4)).as("ignore does not look for unknown fields").isEmpty();
    assertThat(rows.get(0).getList(5)).containsExactly("age");
    assertThat(rows.get(0).getString(7)).isEqualTo("column age: '3000000000' is not a int");
    assertThat(rows.get(1).getList(5)).isEmpty();
    assertThat(rows.get(1).getString(3)).isEqualTo("{\"id\":2,\"age\":30}");
  }

  @Test
  void aValueIsExactlyOneStrictJsonDocumentOrItIsRejected(SparkSession spark) {
    String change = "{\"op\":\"c\",\"after\":{\"id\":1},\"source\":{\"lsn\":1,\"ts_ms\":1},\"ts_ms\":1}";
    String event = "{\"id\":1,\"name\":\"Bo\"}";
    List<String> expected = List.of(
        "null",
        "value holds more than one JSON document",
        "value holds more than one JSON document",
        "value has text after its JSON document",
        "value is not valid JSON",
        "null");
    for (ChangeDecoder decoder : List.of(new DebeziumJsonDecoder(List.of("source.lsn"), CONFIG),
        new JsonEventDecoder(List.of(), Optional.empty(), List.of("d"), Optional.empty()))) {
      String one = decoder instanceof DebeziumJsonDecoder ? change : event;
      List<Row> rows = decode(decoder, SchemaEvolution.EVOLVE, bronze(spark,
          utf8(one),
          utf8(one + one),
          utf8(one + "\n" + one + "\n"),
          utf8(one + " trailing"),
          utf8(one.replace('"', '\'')),
          utf8("  " + one + " \n")));
      assertThat(rows.stream().map(row -> String.valueOf(row.getString(7)))).as(decoder.getClass().getSimpleName())
          .containsExactlyElementsOf(expected);
    }
  }

  /**
   * The image reader takes plain tokens straight to the column's type and leaves every other token to the SQL
   * conversion of its text: a value read straight must equal the same value sent as text (with a leading space, which
   * the SQL trims and the direct path does not take).
   */
  @Test
  void plainTokensReadStraightEqualTheirTextThroughTheSqlConversion(SparkSession spark) {
    JsonEventDecoder decoder = new JsonEventDecoder(List.of(), Optional.empty(), List.of("d"), Optional.empty());
    List<String> values = List.of(
        "{\"id\":%s}", "{\"id\":1,\"age\":%s}", "{\"id\":1,\"credit\":%s}", "{\"id\":1,\"born\":%s}",
        "{\"id\":1,\"seen\":%s}");
    List<List<String>> tokens = List.of(
        List.of("0", "-7", "9223372036854775807", "9223372036854775808"),
        List.of("41", "-2147483648", "2147483648", "1.0", "4e1"),
        List.of("12.5", "12.345", "12.355", "-0.005", "1e2", "12345678.99", "123456789.5", "0", "1.2345678901234567E7"),
        List.of("0", "19000", "-1", "3000000"),
        List.of("1764504000000000", "1764504000000", "1764504000", "-1764504000", "99999999999", "100000000000",
            "-100000000000000", "0"));
    for (int column = 0; column < values.size(); column++) {
      for (String token : tokens.get(column)) {
        String template = values.get(column);
        List<Row> rows = decode(decoder, SchemaEvolution.IGNORE, bronze(spark,
            utf8(String.format(template, token)), utf8(String.format(template, "\" " + token + "\""))));
        assertThat(rows.get(0).getString(3)).as(template + " with " + token).isEqualTo(rows.get(1).getString(3));
        // The reason quotes the text, which differs (a number's text is normalized): whether there is one must not.
        assertThat(rows.get(0).isNullAt(7)).as(template + " with " + token + " rejected").isEqualTo(rows.get(1).isNullAt(7));
      }
    }
    List<Row> booleans = new EntityRows(StructType.fromDDL("id BIGINT, on BOOLEAN"), List.of("id"),
        SchemaEvolution.IGNORE, StreamVersions.none("flags")).decode(decoder.envelopes(bronze(spark,
            utf8("{\"id\":1,\"on\":true}"), utf8("{\"id\":1,\"on\":\"true\"}"), utf8("{\"id\":1,\"on\":false}"),
            utf8("{\"id\":1,\"on\":\"false\"}")))).orderBy("offset").selectExpr("row.on").collectAsList();
    assertThat(booleans.stream().map(row -> row.get(0))).containsExactly(true, true, false, false);
  }
}
