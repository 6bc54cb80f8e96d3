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
   * {@link #SEQ_BYTES}, {@code ts_ms} (the change's time in the source), {@code image} (the entity's fields as a JSON
   * object: the after image, or the before image of a delete) and {@code envelope_error} (why the record is not a
   * change, or null).
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
   * its records carry in {@code schema_version}, and the fields of each Kafka key schema, by {@code key_version};
   * none for a decoder, or an entity, that takes its columns from the config. One pass over the batch.
   */
  default StreamVersions.Stated stated(Dataset<Row> envelopes) {
    return StreamVersions.Stated.NONE;
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
   * The column of the sequence's {@link SequenceBytes} where a decoder made them with the sequence (null where it did
   * not: the merge makes them from {@code seq}).
   */
  String SEQ_BYTES = "seq_bytes";

  /** The column the decoders read their JSON with ({@link JsonEnvelopeReader#read}). */
  String READ = "_read";

  /**
   * The checks every JSON decoder starts with, as CASE branches: a tombstone is no error, then {@link #readChecks}.
   */
  static String textChecks() {
    return "WHEN value IS NULL THEN NULL" + readChecks();
  }

  /**
   * The check of what {@link JsonEnvelopeReader} read (in {@link #READ}): valid UTF-8, exactly one strict JSON
   * document of the decoder's kind.
   */
  static String readChecks() {
    return " WHEN " + READ + ".problem IS NOT NULL THEN " + READ + ".problem";
  }
}
