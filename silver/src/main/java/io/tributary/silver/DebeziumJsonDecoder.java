package io.tributary.silver;

import static org.apache.spark.sql.functions.expr;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.StructType;

/**
 * Debezium change events from the JSON converter, with or without the schema/payload wrapper: ops c, u, d, r
 * (snapshot read) and t (truncate); Kafka tombstones after deletes carry no change. The sequence is read from the
 * envelope: the fields the entity names, or by default each connector's own position ({@link ConnectorOrder}); the
 * change's time is {@code source.ts_ms}, the commit time in the source database (the envelope's {@code ts_ms} when
 * absent).
 */
final class DebeziumJsonDecoder implements ChangeDecoder {
  /** The column of the connector's order ({@link ConnectorOrder#read}), for an entity that names no sequence. */
  private static final String ORDER = "_order";
  private final List<String> sequence;
  private final SchemaSource columns;

  /**
   * @param sequence the envelope fields that order a key's changes; none means the connector's own order
   * @param columns where the entity's columns come from: with {@link SchemaSource#STREAM}, the envelopes keep each
   *     record's schema block ({@code _value_schema}) and its version ({@code schema_version}, a hash of it)
   */
  DebeziumJsonDecoder(List<String> sequence, SchemaSource columns) {
    this.sequence = sequence;
    this.columns = columns;
  }

  @Override
  public StreamVersions.Stated stated(Dataset<Row> envelopes) {
    if (columns != SchemaSource.STREAM) {
      return StreamVersions.Stated.NONE;
    }
    Map<Long, StreamColumns> versions = new LinkedHashMap<>();
    Map<Long, List<String>> keys = new LinkedHashMap<>();
    for (Row version : envelopes.where("schema_version IS NOT NULL").groupBy("schema_version", "key_version")
        .agg(functions.first("_value_schema"), functions.first("_key_schema")).collectAsList()) {
      if (!versions.containsKey(version.getLong(0))) {
        StreamColumns.ofEnvelope(ConnectType.ofJson(version.getString(2)))
            .ifPresent(found -> versions.put(version.getLong(0), found));
      }
      if (!version.isNullAt(1) && !keys.containsKey(version.getLong(1))) {
        keys.put(version.getLong(1), StreamColumns.keyOf(ConnectType.ofJson(version.getString(3))));
      }
    }
    return new StreamVersions.Stated(versions, keys);
  }

  @Override
  public Optional<ConnectType> keySchema(Dataset<Row> bronze) {
    List<Row> first = bronze.where("key IS NOT NULL")
        .selectExpr("get_json_object(CAST(key AS STRING), '$.schema') AS schema",
            "json_object_keys(CAST(key AS STRING)) AS fields")
        .where("schema IS NOT NULL OR fields IS NOT NULL").limit(1).collectAsList();
    if (first.isEmpty()) {
      return Optional.empty();
    }
    if (!first.get(0).isNullAt(0)) {
      return Optional.of(ConnectType.ofJson(first.get(0).getString(0)));
    }
    // A key written without its schema block ({"id": 1}): its fields name the key columns.
    List<ConnectType.Field> fields = first.get(0).<String>getList(1).stream()
        .map(name -> new ConnectType.Field(name, new ConnectType("string", "", Map.of(), List.of(), null, null, "")))
        .toList();
    return Optional.of(new ConnectType("struct", "", Map.of(), fields, null, null, ""));
  }

  @Override
  public Dataset<Row> envelopes(Dataset<Row> bronze) {
    return envelopesOf(bronze, functions.col("value"), ChangeDecoder.textChecks());
  }

  /**
   * The envelopes of the Debezium JSON in {@code document} (BINARY, UTF-8), as {@link #envelopes};
   * {@code valueChecks} are the CASE branches that come first, saying why a value is not a change (the JSON read is
   * in {@link ChangeDecoder#READ}).
   */
  Dataset<Row> envelopesOf(Dataset<Row> rows, Column document, String valueChecks) {
    List<String> paths = new ArrayList<>(List.of("op", "ts_ms", "source.ts_ms", "before", "after"));
    paths.addAll(sequence.isEmpty() ? ConnectorOrder.paths() : sequence);
    StructType envelope = JsonFields.schemaOf(paths);
    // One pass over the value: the strict-document check, the envelope's fields and, for the schema converter's
    // wrapper, the payload's fields and the schema block.
    Dataset<Row> fields = rows
        .withColumn(ChangeDecoder.READ, JsonEnvelopeReader.read(document, envelope, columns == SchemaSource.STREAM
            ? JsonEnvelopeReader.Kind.DEBEZIUM_WITH_SCHEMA : JsonEnvelopeReader.Kind.DEBEZIUM))
        .withColumn("_env", expr(ChangeDecoder.READ + ".fields"));
    if (sequence.isEmpty()) {
      fields = fields.withColumn(ORDER, ConnectorOrder.read(functions.col("_env.source"),
          (StructType) envelope.apply("source").dataType()));
    }
    return fields
        .withColumn("op", expr("_env.op"))
        .withColumn("seq", expr(sequence.isEmpty() ? ORDER + ".seq" : JsonFields.sequence("_env", sequence)))
        .withColumn(ChangeDecoder.SEQ_BYTES, expr(sequence.isEmpty() ? ORDER + ".bytes" : "CAST(NULL AS BINARY)"))
        .withColumn("ts_ms", expr("try_cast(coalesce(_env.source.ts_ms, _env.ts_ms) AS BIGINT)"))
        .withColumn("image", expr("CASE WHEN _env.op = 'd' THEN _env.before ELSE _env.after END"))
        .withColumn("envelope_error", expr("CASE " + valueChecks
            + " WHEN op IS NULL THEN 'missing op'"
            + " WHEN op NOT IN ('c', 'u', 'd', 'r', 't') THEN concat('unknown op ''', op, '''')"
            + " " + (sequence.isEmpty() ? "WHEN " + ORDER + ".problem IS NOT NULL THEN " + ORDER + ".problem"
                : JsonFields.sequenceChecks("_env", sequence))
            + " WHEN op = 't' THEN NULL"
            + " WHEN image IS NULL OR image = 'null' THEN"
            + " CASE WHEN op = 'd' THEN 'missing before image' ELSE 'missing after image' END"
            + " ELSE NULL END"))
        .transform(read -> columns != SchemaSource.STREAM ? read
            : read.withColumn("_value_schema", expr(ChangeDecoder.READ + ".schema"))
                .withColumn("schema_version", expr("CASE WHEN _value_schema IS NOT NULL"
                    + " THEN xxhash64(_value_schema) END"))
                // The key's schema block names the source table's primary key columns.
                .withColumn("_key_schema", expr("get_json_object(CAST(key AS STRING), '$.schema')"))
                .withColumn("key_version", expr("CASE WHEN _key_schema IS NOT NULL THEN xxhash64(_key_schema) END")))
        .drop(ChangeDecoder.READ, "_env", ORDER);
  }
}
