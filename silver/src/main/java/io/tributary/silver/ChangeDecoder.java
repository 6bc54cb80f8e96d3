package io.tributary.silver;

import io.tributary.common.config.SilverEntity;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Reads the envelope of a bronze record: which operation, its sequence, its time and the entity's image. What the
 * image holds is checked against the entity's schema by {@link EntityRows}, the same way for every decoder.
 */
interface ChangeDecoder {
  /**
   * The bronze columns plus {@code op} (c, u, d, r or t), {@code seq} (ARRAY&lt;BIGINT&gt;, compared in order),
   * {@code ts_ms} (the change's time in the source), {@code image} (the entity's fields as a JSON object: the after
   * image, or the before image of a delete) and {@code envelope_error} (why the record is not a change, or null).
   * A Kafka tombstone (null value) has no error and no change.
   */
  Dataset<Row> envelopes(Dataset<Row> bronze);

  /** Where an entity's columns come from. */
  enum SchemaSource {
    /** The config's {@code schema}. */
    CONFIG,
    /** Each change event's own schema (the JSON envelope's schema block, the Avro writer schema). */
    STREAM
  }

  /**
   * The columns each schema version of {@code envelopes} (the output of {@link #envelopes}) states, by the version
   * its records carry in {@code schema_version}; empty for a decoder, or an entity, that takes its columns from the
   * config.
   */
  default java.util.Map<Long, StreamColumns> streamColumns(Dataset<Row> envelopes) {
    return java.util.Map.of();
  }

  /** The schema of the Kafka keys of {@code bronze} (the first key that states one), for key columns. */
  default java.util.Optional<ConnectType> keySchema(Dataset<Row> bronze) {
    return java.util.Optional.empty();
  }

  /** @param registry where Avro writer schemas come from (used by the Avro decoders only) */
  static ChangeDecoder of(SilverEntity entity, java.util.function.Supplier<SchemaRegistryClient> registry) {
    return switch (entity.decoder()) {
      case DEBEZIUM_JSON -> new DebeziumJsonDecoder(entity.sequence(), source(entity));
      case DEBEZIUM_AVRO -> new DebeziumAvroDecoder(entity.sequence(), source(entity), registry.get());
      case JSON -> new JsonEventDecoder(entity.sequence(), entity.opField(), entity.deleteOps(),
          entity.eventTimeField());
      case AVRO -> new AvroEventDecoder(entity.sequence(), entity.opField(), entity.deleteOps(),
          entity.eventTimeField(), registry.get());
    };
  }

  private static SchemaSource source(SilverEntity entity) {
    return entity.columnsFromStream() ? SchemaSource.STREAM : SchemaSource.CONFIG;
  }

  /**
   * The field that {@code from_json} fills with the input when it is not valid JSON: a decoder adds it to its parse
   * schema, so validity costs no second parse.
   */
  String CORRUPT = "_corrupt_record";

  /**
   * The checks every JSON decoder starts with, as CASE branches; {@code _json} is the value as text and
   * {@code parsed} the struct it was parsed into, with a {@link #CORRUPT} field. The value must be exactly one strict
   * JSON document ({@link JsonDocuments}, registered in the session by {@link #registerChecks}).
   */
  static String textChecks(String parsed) {
    String problem = JsonDocuments.FUNCTION + "(value)";
    return "WHEN value IS NULL THEN NULL"
        + " WHEN NOT is_valid_utf8(_json) THEN 'value is not valid UTF-8'"
        + " WHEN " + problem + " IS NOT NULL THEN " + problem
        + " WHEN " + parsed + "." + CORRUPT + " IS NOT NULL OR " + parsed + " IS NULL THEN 'value is not valid JSON'";
  }

  /** Registers the functions {@link #textChecks} calls in the batch's session. */
  static void registerChecks(org.apache.spark.sql.SparkSession spark) {
    JsonDocuments.register(spark);
  }

  /** {@code from_json} of {@code text} into {@code schema} plus the {@link #CORRUPT} field. */
  static String parse(String text, org.apache.spark.sql.types.StructType schema) {
    return "from_json(" + text + ", " + JsonFields.literal(schema.add(CORRUPT, "STRING").toDDL()) + ")";
  }
}
