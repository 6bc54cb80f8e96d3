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

  static ChangeDecoder of(SilverEntity entity) {
    return switch (entity.decoder()) {
      case DEBEZIUM_JSON -> new DebeziumJsonDecoder(entity.sequence());
      case JSON -> new JsonEventDecoder(entity.sequence(), entity.opField(), entity.deleteOps(),
          entity.eventTimeField());
    };
  }

  /** The checks every JSON decoder starts with, as CASE branches; {@code _json} is the value as text. */
  static String textChecks() {
    return "WHEN value IS NULL THEN NULL"
        + " WHEN NOT is_valid_utf8(_json) THEN 'value is not valid UTF-8'"
        + " WHEN try_parse_json(_json) IS NULL THEN 'value is not valid JSON'";
  }
}
