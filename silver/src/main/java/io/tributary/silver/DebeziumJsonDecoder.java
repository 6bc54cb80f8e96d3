package io.tributary.silver;

import static org.apache.spark.sql.functions.expr;

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
 * Decodes bronze rows holding Debezium change events (JSON converter, with or without the schema/payload wrapper)
 * into changes, all in Spark expressions. Each output row is a change ({@code error} null) or a record to
 * quarantine ({@code error} says why); Kafka tombstones (null values after a delete) are marked and carry no change.
 *
 * <p>Output: the source coordinates and raw bytes, {@code op} (c, u, d, r, t), {@code seq} ({@code source.lsn}),
 * {@code ts_ms}, {@code row} (the entity's columns: the after image, or the before image of a delete),
 * {@code tombstone} and {@code error}.
 */
final class DebeziumJsonDecoder {
  static final String ENVELOPE = "STRUCT<op: STRING, ts_ms: BIGINT, source: STRUCT<lsn: BIGINT, ts_ms: BIGINT>,"
      + " before: STRING, after: STRING>";

  private final StructType schema;
  private final List<String> key;

  DebeziumJsonDecoder(StructType schema, List<String> key) {
    this.schema = schema;
    this.key = key;
  }

  Dataset<Row> decode(Dataset<Row> bronze) {
    Dataset<Row> parsed = bronze
        .withColumn("_json", expr("CAST(value AS STRING)"))
        .withColumn("_utf8", expr("value IS NULL OR is_valid_utf8(_json)"))
        .withColumn("_valid_json", expr("try_parse_json(_json) IS NOT NULL"))
        // With the schema converter the envelope sits in "payload"; without it, it is the whole value.
        .withColumn("_envelope_json", expr("coalesce(from_json(_json, 'STRUCT<payload: STRING>').payload, _json)"))
        .withColumn("_env", expr("from_json(_envelope_json, '" + ENVELOPE + "')"))
        .withColumn("op", expr("_env.op"))
        .withColumn("seq", expr("_env.source.lsn"))
        .withColumn("ts_ms", expr("coalesce(_env.ts_ms, _env.source.ts_ms)"))
        .withColumn("_image", expr("CASE WHEN _env.op = 'd' THEN _env.before ELSE _env.after END"))
        .withColumn("_raw", expr("from_json(_image, 'MAP<STRING, STRING>')"))
        .withColumn("_parsed", expr("from_json(_image, '" + parseSchema().toDDL().replace("'", "\\'") + "')"));
    return parsed
        .withColumn("row", rowColumn())
        .withColumn("tombstone", expr("value IS NULL"))
        .withColumn("error", errorColumn())
        .select("topic", "partition", "offset", "kafka_timestamp", "key", "value", "op", "seq", "ts_ms", "row",
            "tombstone", "error");
  }

  /** Timestamps and dates are read as text first: Debezium sends them as epoch numbers or ISO strings. */
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
      parts.add("'" + field.name() + "', " + converted(field));
    }
    return expr("CASE WHEN _parsed IS NULL THEN NULL ELSE named_struct(" + String.join(", ", parts) + ") END");
  }

  /** The parsed value of a field, with Debezium's temporal encodings turned into Spark types. */
  private static String converted(StructField field) {
    String raw = "_parsed.`" + field.name() + "`";
    if (field.dataType().equals(DataTypes.TimestampType)) {
      // Epoch numbers: microseconds (MicroTimestamp), milliseconds (Timestamp) or seconds, told apart by size.
      return "CASE WHEN " + raw + " RLIKE '^-?[0-9]+$' THEN timestamp_micros(CASE"
          + " WHEN abs(CAST(" + raw + " AS BIGINT)) >= 100000000000000 THEN CAST(" + raw + " AS BIGINT)"
          + " WHEN abs(CAST(" + raw + " AS BIGINT)) >= 100000000000 THEN CAST(" + raw + " AS BIGINT) * 1000"
          + " ELSE CAST(" + raw + " AS BIGINT) * 1000000 END)"
          + " ELSE try_to_timestamp(" + raw + ") END";
    }
    if (field.dataType().equals(DataTypes.DateType)) {
      // io.debezium.time.Date is days since the epoch.
      return "CASE WHEN " + raw + " RLIKE '^-?[0-9]+$' THEN date_add(DATE'1970-01-01', CAST(" + raw + " AS INT))"
          + " ELSE try_to_date(" + raw + ") END";
    }
    return raw;
  }

  /** The first reason the record cannot be applied, in the order a person would check them. */
  private Column errorColumn() {
    List<String> checks = new ArrayList<>();
    checks.add("WHEN value IS NULL THEN NULL");
    checks.add("WHEN NOT _utf8 THEN 'value is not valid UTF-8'");
    checks.add("WHEN NOT _valid_json THEN 'value is not valid JSON'");
    checks.add("WHEN op IS NULL THEN 'missing op'");
    checks.add("WHEN op NOT IN ('c', 'u', 'd', 'r', 't') THEN concat('unknown op ''', op, '''')");
    checks.add("WHEN seq IS NULL THEN 'missing sequence source.lsn'");
    checks.add("WHEN op = 't' THEN NULL");
    checks.add("WHEN _image IS NULL THEN CASE WHEN op = 'd' THEN 'missing before image' ELSE 'missing after image' END");
    for (String column : key) {
      checks.add("WHEN row.`" + column + "` IS NULL THEN 'missing key column " + column + "'");
    }
    for (StructField field : schema.fields()) {
      checks.add("WHEN _raw['" + field.name() + "'] IS NOT NULL AND row.`" + field.name() + "` IS NULL THEN"
          + " concat('column " + field.name() + ": ''', _raw['" + field.name() + "'], ''' is not a "
          + field.dataType().simpleString() + "')");
    }
    return expr("CASE " + String.join(" ", checks) + " ELSE NULL END");
  }

  private static boolean isTemporal(DataType type) {
    return type.equals(DataTypes.TimestampType) || type.equals(DataTypes.DateType);
  }
}
