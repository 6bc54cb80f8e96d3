package io.tributary.silver;

import static org.apache.spark.sql.functions.expr;

import io.tributary.common.config.SilverEntity.SchemaEvolution;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Turns a decoder's image (a JSON object) into the entity's columns and says why a change cannot be applied:
 * missing key, a value of the wrong type, or (by policy) a field the schema does not know. Also lists, per record,
 * the fields the schema does not know and the int or float columns whose value needs a wider type, so that
 * {@link SchemaChanges} can evolve the table.
 *
 * <p>The image is read once ({@link JsonImageReader}), into each column's JSON text and the names of the fields the
 * schema does not know: creating a JSON parser costs more than parsing a small record, so every further parse of the
 * same record is avoided.
 *
 * <p>Output: the source coordinates and raw bytes, {@code op}, {@code seq}, {@code seq_bytes}, {@code ts_ms},
 * {@code image}, {@code row} (the entity's columns), {@code unknown_fields}, {@code widen}, {@code tombstone},
 * {@code error} and {@code stage} (decode or schema).
 */
final class EntityRows {
  private static final String NONE = "CAST(array() AS ARRAY<STRING>)";

  private final StructType schema;
  private final List<String> key;
  private final SchemaEvolution policy;
  private final StreamVersions stream;

  /** @param stream the schema versions the batch states, whose semantic types say how a value is read */
  EntityRows(StructType schema, List<String> key, SchemaEvolution policy, StreamVersions stream) {
    this.schema = schema;
    this.key = key;
    this.policy = policy;
    this.stream = stream;
  }

  Dataset<Row> decode(Dataset<Row> envelopes) {
    return envelopes
        .withColumn("_image", JsonImageReader.read(functions.col("image"), schema, SilverTables.RESERVED))
        .withColumn("row", rowColumn())
        // Only a change with an image and its key can teach the schema anything: a record without the key (the wrong
        // decoder for the topic, say) goes to quarantine and must not add its fields to the table.
        .withColumn("_has_image", expr("value IS NOT NULL AND envelope_error IS NULL AND op <> 't' AND _image IS NOT NULL"
            + key.stream().map(column -> " AND row." + Columns.quote(column) + " IS NOT NULL")
                .collect(java.util.stream.Collectors.joining())))
        .withColumn("unknown_fields", expr(policy == SchemaEvolution.IGNORE ? NONE
            : "CASE WHEN _has_image THEN " + unknownFields() + " ELSE " + NONE + " END"))
        .withColumn("widen", expr("CASE WHEN _has_image THEN " + widen() + " ELSE " + NONE + " END"))
        .withColumn("tombstone", expr("value IS NULL"))
        .withColumn("error", errorColumn())
        .withColumn("stage", expr("CASE WHEN envelope_error IS NOT NULL THEN 'decode'"
            + " WHEN error IS NOT NULL THEN 'schema' END"))
        .select("topic", "partition", "offset", "kafka_timestamp", "key", "value", "op", "seq", ChangeDecoder.SEQ_BYTES,
            "ts_ms", "image", "row", "unknown_fields", "widen", "tombstone", "error", "stage");
  }

  private Column rowColumn() {
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < schema.fields().length; i++) {
      StructField field = schema.fields()[i];
      String raw = raw(i);
      String fallback = TypedValues.of(field.dataType()).isPresent()
          ? "coalesce(_image.typed." + JsonImageReader.typedField(i) + ", " + converted(field.dataType(), raw) + ")"
          : converted(field.dataType(), raw);
      String isNumber = field.dataType() instanceof DecimalType ? "_image.numeric." + JsonImageReader.numericField(i)
          : "false";
      parts.add(JsonFields.literal(field.name()) + ", "
          + stream.conversion(field, new SemanticTypes.FieldSql(raw, isNumber), fallback));
    }
    return expr("CASE WHEN _image IS NULL THEN NULL ELSE named_struct(" + String.join(", ", parts) + ") END");
  }

  /**
   * A field's value from its JSON text: strings as they are, numbers and booleans cast (a number sent as a string
   * is accepted, a number that does not fit is not), nested values parsed, and the common temporal encodings of
   * timestamps and dates turned into Spark types.
   */
  private static String converted(DataType type, String raw) {
    if (type.equals(DataTypes.StringType)) {
      return raw;
    }
    if (type.equals(DataTypes.TimestampType)) {
      // Epoch numbers: microseconds (Debezium MicroTimestamp), milliseconds (Timestamp) or seconds, told apart by
      // size; anything else is parsed as an ISO timestamp (ZonedTimestamp).
      return "CASE WHEN try_cast(" + raw + " AS BIGINT) IS NOT NULL THEN timestamp_micros(CASE"
          + " WHEN abs(CAST(" + raw + " AS BIGINT)) >= 100000000000000 THEN CAST(" + raw + " AS BIGINT)"
          + " WHEN abs(CAST(" + raw + " AS BIGINT)) >= 100000000000 THEN CAST(" + raw + " AS BIGINT) * 1000"
          + " ELSE CAST(" + raw + " AS BIGINT) * 1000000 END)"
          + " ELSE try_to_timestamp(" + raw + ") END";
    }
    if (type.equals(DataTypes.DateType)) {
      // Debezium's Date is days since the epoch.
      return "CASE WHEN try_cast(" + raw + " AS INT) IS NOT NULL THEN date_add(DATE'1970-01-01', CAST(" + raw
          + " AS INT))"
          + " ELSE try_to_date(" + raw + ") END";
    }
    if (type.equals(DataTypes.BinaryType)) {
      // Debezium sends bytes as base64.
      return "try_to_binary(" + raw + ", 'base64')";
    }
    if (type instanceof StructType || type instanceof ArrayType || type instanceof MapType) {
      return "from_json(" + raw + ", " + JsonFields.literal(type.sql()) + ")";
    }
    if (type.equals(DataTypes.FloatType)) {
      // A cast to float overflows to Infinity instead of failing: a value beyond float's range is a type error.
      return "CASE WHEN abs(try_cast(" + raw + " AS DOUBLE)) > 3.4028234663852886E38 THEN NULL ELSE try_cast(" + raw
          + " AS FLOAT) END";
    }
    return "try_cast(" + raw + " AS " + type.sql() + ")";
  }

  /** The JSON text of the entity's column at {@code position} in the image. */
  private static String raw(int position) {
    return "_image.fields." + JsonImageReader.field(position);
  }

  /**
   * The dotted paths of the fields in the image that the schema does not have: the top level as the image reader
   * found them, struct columns (not arrays or maps) from their JSON text.
   */
  private String unknownFields() {
    List<String> parts = new ArrayList<>();
    parts.add("_image.unknown");
    for (int i = 0; i < schema.fields().length; i++) {
      StructField field = schema.fields()[i];
      if (field.dataType() instanceof StructType nested) {
        parts.add(unknownNested(nested, raw(i), field.name() + "."));
      }
    }
    return parts.size() == 1 ? parts.get(0) : "concat(" + String.join(", ", parts) + ")";
  }

  private static String unknownNested(StructType struct, String json, String prefix) {
    List<String> parts = new ArrayList<>();
    parts.add(unknown(List.of(struct.fieldNames()), "coalesce(json_object_keys(" + json + "), " + NONE + ")", prefix));
    for (StructField field : struct.fields()) {
      if (field.dataType() instanceof StructType nested) {
        parts.add(unknownNested(nested, "get_json_object(" + json + ", "
            + JsonFields.literal("$['" + field.name() + "']") + ")", prefix + field.name() + "."));
      }
    }
    return parts.size() == 1 ? parts.get(0) : "concat(" + String.join(", ", parts) + ")";
  }

  private static String unknown(List<String> names, String keys, String prefix) {
    String known = String.join(", ", names.stream().map(JsonFields::literal).toList());
    return "transform(array_except(" + keys + ", CAST(array(" + known + ") AS ARRAY<STRING>)), k -> concat("
        + JsonFields.literal(prefix) + ", k))";
  }

  /** The top-level int and float columns whose value in this record only fits the wider type. */
  private String widen() {
    List<String> checks = new ArrayList<>();
    for (int i = 0; i < schema.fields().length; i++) {
      StructField field = schema.fields()[i];
      String raw = raw(i);
      if (field.dataType().equals(DataTypes.IntegerType)) {
        checks.add("CASE WHEN try_cast(" + raw + " AS INT) IS NULL AND try_cast(" + raw + " AS BIGINT) IS NOT NULL"
            + " THEN " + JsonFields.literal(field.name()) + " END");
      } else if (field.dataType().equals(DataTypes.FloatType)) {
        checks.add("CASE WHEN abs(try_cast(" + raw + " AS DOUBLE)) > 3.4028234663852886E38 THEN "
            + JsonFields.literal(field.name()) + " END");
      }
    }
    // The nulls left out by a set difference, not a filter: Spark runs a lambda row by row outside its generated
    // code. The names are distinct, so the difference's dropping of duplicates drops nothing else.
    return checks.isEmpty() ? NONE : "array_except(array(" + String.join(", ", checks)
        + "), array(CAST(NULL AS STRING)))";
  }

  /** The first reason the change cannot be applied, in the order a person would check them. */
  private Column errorColumn() {
    List<String> checks = new ArrayList<>();
    checks.add("WHEN value IS NULL THEN NULL");
    checks.add("WHEN envelope_error IS NOT NULL THEN envelope_error");
    checks.add("WHEN op = 't' THEN NULL");
    checks.add(stream.keyChecks(key));
    checks.add("WHEN _image IS NULL THEN 'the image is not a JSON object'");
    for (String column : key) {
      checks.add("WHEN row." + Columns.quote(column) + " IS NULL THEN " + JsonFields.literal("missing key column " + column));
    }
    for (int i = 0; i < schema.fields().length; i++) {
      StructField field = schema.fields()[i];
      String raw = raw(i);
      checks.add("WHEN " + raw + " IS NOT NULL AND row." + Columns.quote(field.name()) + " IS NULL THEN concat("
          + JsonFields.literal("column " + field.name() + ": '") + ", " + raw + ", "
          + JsonFields.literal("' is not a " + field.dataType().simpleString()) + ")");
    }
    if (policy == SchemaEvolution.QUARANTINE) {
      checks.add("WHEN size(unknown_fields) > 0 THEN concat('unknown field ', array_join(unknown_fields, ', '),"
          + " ' (schema-evolution = quarantine)')");
    }
    return expr("CASE " + String.join(" ", checks.stream().filter(check -> !check.isBlank()).toList())
        + " ELSE NULL END");
  }
}
