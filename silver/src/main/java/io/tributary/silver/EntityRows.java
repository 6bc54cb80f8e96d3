package io.tributary.silver;

import static org.apache.spark.sql.functions.expr;

import io.tributary.common.config.SilverEntity.SchemaEvolution;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Turns a decoder's image (a JSON object) into the entity's columns and says why a change cannot be applied:
 * missing key, a value of the wrong type, or (by policy) a field the schema does not know. Also lists, per record,
 * the fields the schema does not know and the int or float columns whose value needs a wider type, so that
 * {@link SchemaChanges} can evolve the table.
 *
 * <p>Output: the source coordinates and raw bytes, {@code op}, {@code seq}, {@code ts_ms}, {@code image},
 * {@code row} (the entity's columns), {@code unknown_fields}, {@code widen}, {@code tombstone}, {@code error} and {@code stage} (decode or schema).
 */
final class EntityRows {
  private static final String NONE = "CAST(array() AS ARRAY<STRING>)";

  private final StructType schema;
  private final List<String> key;
  private final SchemaEvolution policy;

  EntityRows(StructType schema, List<String> key, SchemaEvolution policy) {
    this.schema = schema;
    this.key = key;
    this.policy = policy;
  }

  Dataset<Row> decode(Dataset<Row> envelopes) {
    return envelopes
        .withColumn("_raw", expr("from_json(image, 'MAP<STRING, STRING>')"))
        .withColumn("_parsed", expr("from_json(image, '" + parseSchema().toDDL().replace("'", "\\'") + "')"))
        .withColumn("row", rowColumn())
        // Only a record that is a change with an image can teach the schema anything.
        .withColumn("_has_image", expr("value IS NOT NULL AND envelope_error IS NULL AND op <> 't' AND _raw IS NOT NULL"))
        .withColumn("unknown_fields", expr(policy == SchemaEvolution.IGNORE ? NONE
            : "CASE WHEN _has_image THEN " + unknownFields(schema, "image", "") + " ELSE " + NONE + " END"))
        .withColumn("widen", expr("CASE WHEN _has_image THEN " + widen() + " ELSE " + NONE + " END"))
        .withColumn("tombstone", expr("value IS NULL"))
        .withColumn("error", errorColumn())
        .withColumn("stage", expr("CASE WHEN envelope_error IS NOT NULL THEN 'decode'"
            + " WHEN error IS NOT NULL THEN 'schema' END"))
        .select("topic", "partition", "offset", "kafka_timestamp", "key", "value", "op", "seq", "ts_ms", "image", "row",
            "unknown_fields", "widen", "tombstone", "error", "stage");
  }

  /** Timestamps and dates are read as text first: sources send them as epoch numbers or ISO strings. */
  private StructType parseSchema() {
    List<StructField> fields = new ArrayList<>();
    for (StructField field : schema.fields()) {
      DataType type = isTemporal(field.dataType()) ? DataTypes.StringType : field.dataType();
      fields.add(new StructField(field.name(), type, true, field.metadata()));
    }
    return new StructType(fields.toArray(new StructField[0]));
  }

  private Column rowColumn() {
    List<String> parts = new ArrayList<>();
    for (StructField field : schema.fields()) {
      parts.add(JsonFields.literal(field.name()) + ", " + converted(field));
    }
    return expr("CASE WHEN _parsed IS NULL THEN NULL ELSE named_struct(" + String.join(", ", parts) + ") END");
  }

  /** The parsed value of a field, with the common temporal encodings turned into Spark types. */
  private static String converted(StructField field) {
    String raw = "_parsed.`" + field.name() + "`";
    if (field.dataType().equals(DataTypes.TimestampType)) {
      // Epoch numbers: microseconds (Debezium MicroTimestamp), milliseconds (Timestamp) or seconds, told apart by
      // size; anything else is parsed as an ISO timestamp (ZonedTimestamp).
      return "CASE WHEN " + raw + " RLIKE '^-?[0-9]+$' THEN timestamp_micros(CASE"
          + " WHEN abs(CAST(" + raw + " AS BIGINT)) >= 100000000000000 THEN CAST(" + raw + " AS BIGINT)"
          + " WHEN abs(CAST(" + raw + " AS BIGINT)) >= 100000000000 THEN CAST(" + raw + " AS BIGINT) * 1000"
          + " ELSE CAST(" + raw + " AS BIGINT) * 1000000 END)"
          + " ELSE try_to_timestamp(" + raw + ") END";
    }
    if (field.dataType().equals(DataTypes.DateType)) {
      // Debezium's Date is days since the epoch.
      return "CASE WHEN " + raw + " RLIKE '^-?[0-9]+$' THEN date_add(DATE'1970-01-01', CAST(" + raw + " AS INT))"
          + " ELSE try_to_date(" + raw + ") END";
    }
    return raw;
  }

  /**
   * The dotted paths of the fields in {@code json} that {@code struct} does not have, descending into struct
   * columns (not into arrays or maps).
   */
  static String unknownFields(StructType struct, String json, String prefix) {
    String known = String.join(", ", List.of(struct.fieldNames()).stream().map(JsonFields::literal).toList());
    List<String> parts = new ArrayList<>();
    parts.add("transform(array_except(coalesce(json_object_keys(" + json + "), CAST(array() AS ARRAY<STRING>)),"
        + " CAST(array(" + known + ") AS ARRAY<STRING>)), k -> concat(" + JsonFields.literal(prefix) + ", k))");
    for (StructField field : struct.fields()) {
      if (field.dataType() instanceof StructType nested) {
        String child = "get_json_object(" + json + ", " + JsonFields.literal("$['" + field.name() + "']") + ")";
        parts.add(unknownFields(nested, child, prefix + field.name() + "."));
      }
    }
    return parts.size() == 1 ? parts.get(0) : "concat(" + String.join(", ", parts) + ")";
  }

  /** The top-level int and float columns whose value in this record only fits the wider type. */
  private String widen() {
    List<String> checks = new ArrayList<>();
    for (StructField field : schema.fields()) {
      String raw = "_raw[" + JsonFields.literal(field.name()) + "]";
      if (field.dataType().equals(DataTypes.IntegerType)) {
        checks.add("CASE WHEN try_cast(" + raw + " AS INT) IS NULL AND try_cast(" + raw + " AS BIGINT) IS NOT NULL"
            + " THEN " + JsonFields.literal(field.name()) + " END");
      } else if (field.dataType().equals(DataTypes.FloatType)) {
        checks.add("CASE WHEN abs(try_cast(" + raw + " AS DOUBLE)) > 3.4028234663852886E38 THEN "
            + JsonFields.literal(field.name()) + " END");
      }
    }
    return checks.isEmpty() ? NONE : "filter(array(" + String.join(", ", checks)
        + "), c -> c IS NOT NULL)";
  }

  /** The first reason the change cannot be applied, in the order a person would check them. */
  private Column errorColumn() {
    List<String> checks = new ArrayList<>();
    checks.add("WHEN value IS NULL THEN NULL");
    checks.add("WHEN envelope_error IS NOT NULL THEN envelope_error");
    checks.add("WHEN op = 't' THEN NULL");
    checks.add("WHEN _raw IS NULL THEN 'the image is not a JSON object'");
    for (String column : key) {
      checks.add("WHEN row.`" + column + "` IS NULL THEN " + JsonFields.literal("missing key column " + column));
    }
    for (StructField field : schema.fields()) {
      String raw = "_raw[" + JsonFields.literal(field.name()) + "]";
      checks.add("WHEN " + raw + " IS NOT NULL AND row.`" + field.name() + "` IS NULL THEN concat("
          + JsonFields.literal("column " + field.name() + ": '") + ", " + raw + ", "
          + JsonFields.literal("' is not a " + field.dataType().simpleString()) + ")");
    }
    if (policy == SchemaEvolution.QUARANTINE) {
      checks.add("WHEN size(unknown_fields) > 0 THEN concat('unknown field ', array_join(unknown_fields, ', '),"
          + " ' (schema-evolution = quarantine)')");
    }
    return expr("CASE " + String.join(" ", checks) + " ELSE NULL END");
  }

  private static boolean isTemporal(DataType type) {
    return type.equals(DataTypes.TimestampType) || type.equals(DataTypes.DateType);
  }
}
