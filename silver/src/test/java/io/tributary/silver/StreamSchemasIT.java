package io.tributary.silver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.apicurio.registry.utils.converter.avro.AvroData;
import io.debezium.data.Envelope;
import io.tributary.bronze.BronzeFixture;
import io.tributary.bronze.BronzeIngestJob;
import io.tributary.common.config.InvalidConfigException;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.testing.SharedSpark;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.testing.SharedKafka;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Columns and key from the change stream: an entity without {@code schema} and {@code key}, fed Debezium change
 * events whose columns cover Debezium's semantic types ({@link TypedTableEvents}), as the JSON converter writes them
 * and in Avro with a registry. The silver table is created from the first records with each semantic type's column
 * type, a later schema version's new columns arrive typed as the stream states them, a dropped column stays (null
 * in newer rows), a narrowed one keeps its wider type, and every value equals what the source sent. A stream that cannot state its columns fails in one line naming the config key.
 */
@ExtendWith({SharedSpark.class, SharedKafka.class})
class StreamSchemasIT {

  /** Writes the test's change events in one of the two encodings. */
  private interface Encoding {
    byte[] value(TypedTableEvents events, Struct change);

    byte[] key(TypedTableEvents events, long id);

    String entity();
  }

  @Test
  void jsonChangeEventsGiveTheTableItsColumnsKeyAndValues(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    columnsKeyAndValuesComeFromTheStream(spark, broker, dir, new Encoding() {
      @Override
      public byte[] value(TypedTableEvents events, Struct change) {
        return events.json(change);
      }

      @Override
      public byte[] key(TypedTableEvents events, long id) {
        return events.jsonKey(id);
      }

      @Override
      public String entity() {
        return "decoder = debezium-json";
      }
    }, "");
  }

  @Test
  void avroChangeEventsGiveTheSameTable(SparkSession spark, LocalKafkaBroker broker, @TempDir Path dir)
      throws Exception {
    try (SchemaRegistryStandIn registry = new SchemaRegistryStandIn()) {
      Map<Integer, Integer> valueIds = new LinkedHashMap<>();
      int[] keyId = {-1};
      columnsKeyAndValuesComeFromTheStream(spark, broker, dir, new Encoding() {
        @Override
        public byte[] value(TypedTableEvents events, Struct change) {
          int id = valueIds.computeIfAbsent(events.version(), version -> registry.register(
              events.avroSchema().toString()));
          return events.avro(change, id);
        }

        @Override
        public byte[] key(TypedTableEvents events, long id) {
          if (keyId[0] < 0) {
            keyId[0] = registry.register(events.avroKeySchema().toString());
          }
          return events.avroKey(id, keyId[0]);
        }

        @Override
        public String entity() {
          return "decoder = debezium-avro";
        }
      }, "tributary.schema-registry.url = \"" + registry.url() + "\"\n");
    }
  }

  private static void columnsKeyAndValuesComeFromTheStream(SparkSession spark, LocalKafkaBroker broker, Path dir,
      Encoding encoding, String extra) throws Exception {
    TypedTableEvents v1 = new TypedTableEvents(1);
    TypedTableEvents v2 = new TypedTableEvents(2);
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(2, "items");
    TributaryConfig config = fixture.config(Map.of("items", "items"), extra
        + "tributary.silver.entities.items { source = bronze.items, " + encoding.entity()
        + ", table = silver.items }");
    String lake = config.catalog().name();

    // Version 1: a snapshot of three items, an update, a delete.
    List<ProducerRecord<byte[], byte[]>> first = new ArrayList<>();
    for (int id = 1; id <= 3; id++) {
      first.add(record(fixture, encoding.key(v1, id), encoding.value(v1, v1.change("r", null, v1.item(id, id), 10))));
    }
    first.add(record(fixture, encoding.key(v1, 2), encoding.value(v1, v1.change("u", v1.item(2, 2), v1.item(2, 20),
        20))));
    first.add(record(fixture, encoding.key(v1, 3), encoding.value(v1, v1.change("d", v1.item(3, 3), null, 30))));
    fixture.send("items", first);
    new BronzeIngestJob(spark, config).runUntilCaughtUp();
    new SilverMergeJob(spark, config).runUntilCaughtUp();

    StructType created = spark.table(lake + ".silver.items").schema();
    assertThat(entityColumns(created).toDDL()).isEqualTo(StructType.fromDDL(TypedTableEvents.SPARK_COLUMNS).toDDL());
    assertThat(spark.sql("SHOW TBLPROPERTIES " + lake + ".silver.items ('" + StreamShape.KEY_PROPERTY + "')")
        .first().getString(1)).isEqualTo("[\"id\"]");
    assertRow(spark, lake, 1, TypedTableEvents.expected(1, 1));
    assertRow(spark, lake, 2, TypedTableEvents.expected(2, 20));
    assertThat(spark.sql("SELECT _is_deleted FROM " + lake + ".silver.items WHERE id = 3").first().getBoolean(0))
        .isTrue();

    // Version 2 adds note (text) and shipped (a MicroTimestamp, whose values alone would say BIGINT); a writer still
    // on version 1 changes item 2 in the same batch.
    fixture.send("items", List.of(
        record(fixture, encoding.key(v2, 4), encoding.value(v2, v2.change("c", null, v2.item(4, 4), 40))),
        record(fixture, encoding.key(v1, 2), encoding.value(v1, v1.change("u", v1.item(2, 20), v1.item(2, 21), 45))),
        record(fixture, encoding.key(v2, 1), encoding.value(v2, v2.change("u", v2.item(1, 1), v2.item(1, 11), 50)))));
    new BronzeIngestJob(spark, config).runUntilCaughtUp();
    new SilverMergeJob(spark, config).runUntilCaughtUp();

    assertThat(entityColumns(spark.table(lake + ".silver.items").schema()).toDDL()).isEqualTo(StructType.fromDDL(
        TypedTableEvents.SPARK_COLUMNS + ", note STRING, shipped TIMESTAMP_NTZ").toDDL());
    assertRow(spark, lake, 1, TypedTableEvents.expectedV2(1, 11));
    assertRow(spark, lake, 4, TypedTableEvents.expectedV2(4, 4));
    Map<String, Object> olderWriter = TypedTableEvents.expected(2, 21);
    olderWriter.put("note", null);
    olderWriter.put("shipped", null);
    assertRow(spark, lake, 2, olderWriter);

    // Version 3 drops note and narrows ratio to a float: the table keeps both columns as they are, the item's new
    // version has no note, and its ratio is stored in the wider column.
    TypedTableEvents v3 = new TypedTableEvents(3);
    fixture.send("items", List.of(record(fixture, encoding.key(v3, 4),
        encoding.value(v3, v3.change("u", v3.item(4, 4), v3.item(4, 46), 60)))));
    new BronzeIngestJob(spark, config).runUntilCaughtUp();
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    assertThat(entityColumns(spark.table(lake + ".silver.items").schema()).toDDL()).isEqualTo(StructType.fromDDL(
        TypedTableEvents.SPARK_COLUMNS + ", note STRING, shipped TIMESTAMP_NTZ").toDDL());
    Map<String, Object> narrowed = TypedTableEvents.expectedV2(4, 46);
    narrowed.put("note", null);
    assertRow(spark, lake, 4, narrowed);
    assertThat(spark.table(lake + ".silver.quarantine").count()).isZero();
  }

  @Test
  void aStreamThatCannotStateItsColumnsOrTypesFailsNamingTheKey(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    TypedTableEvents v1 = new TypedTableEvents(1);
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(1, "items");
    fixture.send("items", List.of(record(fixture, v1.jsonKey(1),
        v1.jsonWithoutSchema(v1.change("c", null, v1.item(1, 1), 10)))));
    TributaryConfig config = fixture.config(Map.of("items", "items"),
        "tributary.silver.entities.items { source = bronze.items, decoder = debezium-json, table = silver.items }");
    new BronzeIngestJob(spark, config).runUntilCaughtUp();
    String bronze = config.catalog().name() + ".bronze.items";
    assertThatThrownBy(() -> new SilverMergeJob(spark, config).runUntilCaughtUp())
        .isInstanceOf(InvalidConfigException.class)
        .hasMessage("Invalid configuration: tributary.silver.entities.items.schema: is missing, and the newest change events in " + bronze
            + " carry no schema to take the columns from (JSON written with the converter's schemas.enable = false,"
            + " Avro whose schema ids the registry does not know, or records that are not Debezium change events);"
            + " give the entity a schema");
    assertThat(spark.catalog().tableExists(config.catalog().name() + ".silver.items")).isFalse();

    // A hand-written schema wins: the same records apply with it.
    TributaryConfig written = fixture.config(Map.of("items", "items"), "tributary.silver.entities.items {"
        + " source = bronze.items, decoder = debezium-json, table = silver.items, key = [id],"
        + " schema = \"id BIGINT, name STRING, small INT\" }");
    new SilverMergeJob(spark, written).runUntilCaughtUp();
    assertThat(spark.sql("SELECT id, name, small FROM " + config.catalog().name() + ".silver.items").collectAsList()
        .toString()).isEqualTo("[[1,item 1 ü€,1]]");
  }

  /**
   * A Connect {@code Decimal} keeps its exact value whichever way it is written: base64 of the unscaled bytes (the
   * JSON converter's default), a JSON number ({@code decimal.format = NUMERIC}: digits alone are valid base64 and
   * were once read as bytes, 1234 becoming -2658824) and Avro; and a value beyond a double's 17 digits keeps its last
   * ones.
   */
  @Test
  void decimalsKeepTheirExactValueInEveryEncoding(SparkSession spark, LocalKafkaBroker broker, @TempDir Path dir)
      throws Exception {
    Schema key = SchemaBuilder.struct().name("ledger.public.entries.Key").field("id", Schema.INT64_SCHEMA).build();
    Schema row = SchemaBuilder.struct().name("ledger.public.entries.Value")
        .field("id", Schema.INT64_SCHEMA)
        .field("whole", Decimal.builder(0).parameter("connect.decimal.precision", "10").optional().build())
        .field("cents", Decimal.builder(2).parameter("connect.decimal.precision", "10").optional().build())
        .field("big", Decimal.builder(2).parameter("connect.decimal.precision", "22").optional().build())
        .optional().build();
    Envelope envelope = Envelope.defineSchema()
        .withName("ledger.public.entries.Envelope").withRecord(row).withSource(TypedTableEvents.SOURCE).build();
    String[][] sent = {{"1234", "12.34", "12345678901234567890.12"}, {"100", "-0.05", "-98765432109876543.21"},
        {"-7", "100.00", "0.01"}};
    List<Struct> changes = new ArrayList<>();
    for (int i = 0; i < sent.length; i++) {
      Struct after = new Struct(row).put("id", (long) i).put("whole", new BigDecimal(sent[i][0]))
          .put("cents", new BigDecimal(sent[i][1])).put("big", new BigDecimal(sent[i][2]));
      Struct source = new Struct(TypedTableEvents.SOURCE).put("version", "3.6.1.Final").put("connector", "postgresql")
          .put("name", "ledger").put("ts_ms", 1764504000000L).put("db", "ledger").put("schema", "public")
          .put("table", "entries").put("lsn", 10L + i);
      changes.add(envelope.read(after, source, Instant.ofEpochMilli(1764504000000L)));
    }

    try (SchemaRegistryStandIn registry = new SchemaRegistryStandIn()) {
      AvroData avroData = new AvroData(100);
      org.apache.avro.Schema avroValue = avroData.fromConnectSchema(envelope.schema());
      org.apache.avro.Schema avroKey = avroData.fromConnectSchema(key);
      int valueId = registry.register(avroValue.toString());
      int keyId = registry.register(avroKey.toString());
      Map<String, IntFunction<ProducerRecord<byte[], byte[]>>> encodings = new LinkedHashMap<>();
      for (String format : List.of("BASE64", "NUMERIC")) {
        JsonConverter valueConverter = new JsonConverter();
        valueConverter.configure(Map.of("schemas.enable", "true", "decimal.format", format), false);
        JsonConverter keyConverter = new JsonConverter();
        keyConverter.configure(Map.of("schemas.enable", "true"), true);
        encodings.put("json_" + format.toLowerCase(Locale.ROOT), i -> new ProducerRecord<>("",
            keyConverter.fromConnectData("t", key, new Struct(key).put("id", (long) i)),
            valueConverter.fromConnectData("t", envelope.schema(), changes.get(i))));
      }
      encodings.put("avro", i -> new ProducerRecord<>("",
          AvroRecords.frame(keyId, avroKey, avroData.fromConnectData(key, new Struct(key).put("id", (long) i))),
          AvroRecords.frame(valueId, avroValue, avroData.fromConnectData(envelope.schema(), changes.get(i)))));

      BronzeFixture fixture = new BronzeFixture(broker, dir);
      fixture.createTopics(1, encodings.keySet().toArray(new String[0]));
      StringBuilder entities = new StringBuilder("tributary.schema-registry.url = \"" + registry.url() + "\"\n");
      Map<String, String> sources = new LinkedHashMap<>();
      for (var encoding : encodings.entrySet()) {
        String name = encoding.getKey();
        sources.put(name, name);
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int i = 0; i < sent.length; i++) {
          ProducerRecord<byte[], byte[]> made = encoding.getValue().apply(i);
          records.add(new ProducerRecord<>(fixture.topic(name), made.key(), made.value()));
        }
        fixture.send(name, records);
        entities.append("tributary.silver.entities.").append(name).append(" { source = bronze.").append(name)
            .append(", decoder = debezium-").append(name.startsWith("avro") ? "avro" : "json")
            .append(", table = silver.").append(name).append(" }\n");
      }
      TributaryConfig config = fixture.config(sources, entities.toString());
      new BronzeIngestJob(spark, config).runUntilCaughtUp();
      new SilverMergeJob(spark, config).runUntilCaughtUp();

      String lake = config.catalog().name();
      for (String name : encodings.keySet()) {
        assertThat(spark.table(lake + ".silver." + name).select("whole", "cents", "big").schema().toDDL())
            .as(name).isEqualTo("whole DECIMAL(10,0),cents DECIMAL(10,2),big DECIMAL(22,2)");
        List<String> read = spark.sql("SELECT whole, cents, big FROM " + lake + ".silver." + name + " ORDER BY id")
            .collectAsList().stream().map(r -> r.getDecimal(0).toPlainString() + " " + r.getDecimal(1).toPlainString()
                + " " + r.getDecimal(2).toPlainString()).toList();
        assertThat(read).as(name).containsExactly(Arrays.stream(sent).map(v -> String.join(" ", v))
            .toArray(String[]::new));
      }
      assertThat(spark.table(lake + ".silver.quarantine").count()).isZero();
    }
  }

  private static void assertRow(SparkSession spark, String lake, long id, Map<String, Object> expected) {
    Row row = spark.sql("SELECT " + String.join(", ", expected.keySet().stream().map(c -> "`" + c + "`").toList())
        + " FROM " + lake + ".silver.items WHERE id = " + id).first();
    Map<String, Object> actual = new LinkedHashMap<>();
    int i = 0;
    for (String column : expected.keySet()) {
      actual.put(column, TypedTableEvents.normalized(row.get(i++)));
    }
    assertThat(actual).as("item %d", id).isEqualTo(expected);
  }

  private static StructType entityColumns(StructType table) {
    return new StructType(java.util.Arrays.stream(table.fields())
        .filter(field -> !SilverTables.RESERVED.contains(field.name()))
        .toArray(org.apache.spark.sql.types.StructField[]::new));
  }

  private static ProducerRecord<byte[], byte[]> record(BronzeFixture fixture, byte[] key, byte[] value) {
    return new ProducerRecord<>(fixture.topic("items"), key, value);
  }
}
