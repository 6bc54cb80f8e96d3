package io.tributary.silver;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Bronze values in the Confluent wire format (byte 0, the writer schema's id in 4 bytes big-endian, then Avro
 * binary) turned into JSON text, so that a JSON decoder reads them on with its own rules. The batch's distinct schema
 * ids are read first; each writer schema is fetched from the registry ({@link SchemaRegistryClient}, once per id)
 * and its records decoded with it ({@link AvroJson}), so records of several schema versions decode in one batch.
 * Avro's logical types arrive as their values (a decimal as a number with its scale, a timestamp as an ISO
 * instant). Not spark-avro's {@code from_avro}: each copy of that expression the optimizer makes loads a Hadoop
 * configuration, and a batch of a wide table spent most of its time there (measured: 20 to 40 s for 8 records).
 */
final class AvroFrames {
  /** The writer schema id of a value in the wire format; null for a value that is not in it. */
  private static final String SCHEMA_ID = schemaId("value");

  /** The SQL of the writer schema id of binary column {@code column} in the wire format (null when it is not). */
  static String schemaId(String column) {
    return "CASE WHEN length(" + column + ") >= 5 AND substring(" + column + ", 1, 1) = X'00'"
        + " THEN CAST(conv(hex(substring(" + column + ", 2, 4)), 16, 10) AS BIGINT) END";
  }
  static final String WIRE_FORMAT = "value is not in the Confluent wire format (byte 0, a 4-byte schema id, then"
      + " Avro binary)";

  /**
   * The bronze rows with {@code _json} (the record as JSON text; null when it cannot be read) and the CASE branches
   * saying why, for the decoder to put first among its checks. Drop {@code _schema_id} after decoding.
   */
  record Framed(Dataset<Row> rows, String checks) {}

  private final SchemaRegistryClient registry;
  /** Why a writer schema cannot hold the decoder's records (e.g. not a Debezium envelope); empty when it can. */
  private final Function<Schema, Optional<String>> unusable;

  AvroFrames(SchemaRegistryClient registry, Function<Schema, Optional<String>> unusable) {
    this.registry = registry;
    this.unusable = unusable;
  }

  Framed toJson(Dataset<Row> bronze) {
    AvroJson.register(bronze.sparkSession());
    Dataset<Row> framed = bronze.withColumn("_schema_id", expr(SCHEMA_ID));
    List<Long> ids = framed.where("_schema_id IS NOT NULL").select("_schema_id").distinct().orderBy("_schema_id")
        .collectAsList().stream().map(row -> row.getLong(0)).toList();
    List<Column> decoded = new ArrayList<>();
    List<String> checks = new ArrayList<>(List.of("WHEN value IS NULL THEN NULL",
        "WHEN _schema_id IS NULL THEN " + JsonFields.literal(WIRE_FORMAT)));
    for (long id : ids) {
      Optional<String> text = id > Integer.MAX_VALUE ? Optional.empty() : registry.schema((int) id);
      Optional<String> problem;
      Schema schema = null;
      if (text.isEmpty()) {
        problem = Optional.of("unknown schema id " + id + " (the registry has no schema of that id)");
      } else {
        try {
          schema = AvroJson.parseWriterSchema(text.get());
          problem = unusable.apply(schema).map(why -> "schema id " + id + " " + why);
        } catch (SchemaParseException e) {
          problem = Optional.of("schema id " + id + " is not a valid Avro schema: " + e.getMessage());
        }
      }
      if (problem.isPresent()) {
        checks.add("WHEN _schema_id = " + id + " THEN " + JsonFields.literal(problem.get()));
        continue;
      }
      requireReadable(id, schema, "");
      decoded.add(when(col("_schema_id").equalTo(lit(id)), expr(AvroJson.FUNCTION + "(value, "
          + JsonFields.literal(text.get()) + ")")));
    }
    checks.add("WHEN _json IS NULL THEN concat('Avro bytes do not match their writer schema (id ', _schema_id,"
        + " ')')");
    Column json = decoded.isEmpty() ? lit(null).cast("string") : coalesce(decoded.toArray(Column[]::new));
    return new Framed(framed.withColumn("_json", json), String.join(" ", checks));
  }

  /** A writer schema that is not a record cannot hold an entity's image or a change. */
  static Optional<String> notARecord(Schema schema) {
    return schema.getType() == Schema.Type.RECORD ? Optional.empty()
        : Optional.of("is not a record but " + schema.getType().getName());
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
