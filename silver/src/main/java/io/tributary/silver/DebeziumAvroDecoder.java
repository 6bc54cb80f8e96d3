package io.tributary.silver;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.to_json;
import static org.apache.spark.sql.functions.when;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.avro.functions;

/**
 * Debezium change events in Avro, in the Confluent wire format: byte 0, the writer schema's id (4 bytes, big-endian),
 * then the Avro binary of Debezium's envelope. The batch's distinct schema ids are read first; each writer schema is
 * fetched from the registry once ({@link SchemaRegistryClient}) and decoded with spark-avro, so records written under
 * different schema versions decode in one batch. A decoded envelope is read on as Debezium JSON is
 * ({@link DebeziumJsonDecoder}): the same op, order, time and image rules, and the same quarantine reasons. Avro's
 * logical types arrive as Spark types (a decimal with its scale, a timestamp), Debezium's semantic types (a
 * {@code MicroTimestamp} is a long) as the JSON converter writes them.
 */
final class DebeziumAvroDecoder implements ChangeDecoder {
  /** The writer schema id of a value in the wire format; null for a value that is not in it. */
  private static final String SCHEMA_ID = "CASE WHEN length(value) >= 5 AND substring(value, 1, 1) = X'00'"
      + " THEN CAST(conv(hex(substring(value, 2, 4)), 16, 10) AS BIGINT) END";
  private static final String WIRE_FORMAT = "value is not in the Confluent wire format (byte 0, a 4-byte schema id,"
      + " then Avro binary)";

  private final DebeziumJsonDecoder envelopes;
  private final SchemaRegistryClient registry;

  /** @param sequence the envelope fields that order a key's changes; none means the connector's own order */
  DebeziumAvroDecoder(List<String> sequence, SchemaRegistryClient registry) {
    this.envelopes = new DebeziumJsonDecoder(sequence);
    this.registry = registry;
  }

  @Override
  public Dataset<Row> envelopes(Dataset<Row> bronze) {
    Dataset<Row> framed = bronze.withColumn("_schema_id", expr(SCHEMA_ID));
    List<Long> ids = framed.where("_schema_id IS NOT NULL").select("_schema_id").distinct().orderBy("_schema_id")
        .collectAsList().stream().map(row -> row.getLong(0)).toList();
    List<Column> decoded = new ArrayList<>();
    List<String> checks = new ArrayList<>(List.of("WHEN value IS NULL THEN NULL",
        "WHEN _schema_id IS NULL THEN " + JsonFields.literal(WIRE_FORMAT)));
    for (long id : ids) {
      Optional<String> problem = Optional.empty();
      Optional<String> schema = id > Integer.MAX_VALUE ? Optional.empty() : registry.schema((int) id);
      if (schema.isEmpty()) {
        problem = Optional.of("unknown schema id " + id + " (the registry has no schema of that id)");
      } else {
        problem = notAnEnvelope(schema.get()).map(why -> "schema id " + id + " " + why);
        if (problem.isEmpty()) {
          requireReadable(id, new Schema.Parser().parse(schema.get()), "");
        }
      }
      if (problem.isPresent()) {
        checks.add("WHEN _schema_id = " + id + " THEN " + JsonFields.literal(problem.get()));
        continue;
      }
      // Decoded only for its own records; PERMISSIVE turns bytes that are not the schema's into a row of nulls.
      Column record = when(col("_schema_id").equalTo(lit(id)), functions.from_avro(expr("substring(value, 6)"),
          schema.get(), Map.of("mode", "PERMISSIVE")));
      String name = "_avro_" + id;
      framed = framed.withColumn(name, record);
      decoded.add(when(col(name + ".op").isNotNull(), to_json(col(name))));
    }
    checks.add("WHEN _json IS NULL THEN concat('Avro bytes do not match their writer schema (id ', _schema_id,"
        + " ')')");
    Column json = decoded.isEmpty() ? lit(null).cast("string") : coalesce(decoded.toArray(Column[]::new));
    Dataset<Row> withJson = framed.withColumn("_json", json);
    for (long id : ids) {
      if (List.of(withJson.columns()).contains("_avro_" + id)) {
        withJson = withJson.drop("_avro_" + id);
      }
    }
    return envelopes.envelopesOfText(withJson, String.join(" ", checks)).drop("_schema_id");
  }

  /** Why a writer schema cannot hold Debezium's envelope, if it cannot. */
  private static Optional<String> notAnEnvelope(String schemaJson) {
    Schema schema;
    try {
      schema = new Schema.Parser().parse(schemaJson);
    } catch (SchemaParseException e) {
      return Optional.of("is not a valid Avro schema: " + e.getMessage());
    }
    if (schema.getType() != Schema.Type.RECORD || schema.getField("op") == null) {
      return Optional.of("is not a Debezium envelope (a record with an op field): " + schema.getFullName());
    }
    return Optional.empty();
  }

  /**
   * Fails, naming the field, when a writer schema holds a value Spark cannot: a decimal of more than 38 digits
   * (Avro converters write 64 when the source column states no precision). Its records are good data, so the batch
   * fails rather than quarantining them.
   */
  private static void requireReadable(long id, Schema schema, String path) {
    switch (schema.getType()) {
      case RECORD -> schema.getFields().forEach(field -> requireReadable(id, field.schema(),
          path.isEmpty() ? field.name() : path + "." + field.name()));
      case UNION -> schema.getTypes().forEach(branch -> requireReadable(id, branch, path));
      case ARRAY -> requireReadable(id, schema.getElementType(), path + "[]");
      case MAP -> requireReadable(id, schema.getValueType(), path + "{}");
      default -> {
        if (schema.getLogicalType() instanceof LogicalTypes.Decimal decimal && decimal.getPrecision() > 38) {
          throw new IllegalStateException("schema id " + id + ", field " + path + ": a decimal of precision "
              + decimal.getPrecision() + " (scale " + decimal.getScale() + "), and Spark holds at most 38 digits;"
              + " give the source column a precision, or have Debezium write it as a string"
              + " (decimal.handling.mode = string)");
        }
      }
    }
  }
}
