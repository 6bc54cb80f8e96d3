package io.tributary.silver;

import static org.apache.spark.sql.functions.expr;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;

/**
 * Debezium change events from the JSON converter, with or without the schema/payload wrapper: ops c, u, d, r
 * (snapshot read) and t (truncate); Kafka tombstones after deletes carry no change. The sequence is read from the
 * envelope (by default {@code source.lsn}); the change's time is {@code source.ts_ms}, the commit time in the source
 * database (the envelope's {@code ts_ms} when absent).
 */
final class DebeziumJsonDecoder implements ChangeDecoder {
  private final List<String> sequence;

  DebeziumJsonDecoder(List<String> sequence) {
    this.sequence = sequence;
  }

  @Override
  public Dataset<Row> envelopes(Dataset<Row> bronze) {
    ChangeDecoder.registerChecks(bronze.sparkSession());
    List<String> paths = new ArrayList<>(List.of("op", "ts_ms", "source.ts_ms", "before", "after"));
    paths.addAll(sequence);
    StructType envelope = JsonFields.schemaOf(paths);
    // One parse: the envelope's fields and, for the schema converter's wrapper, the payload as text (parsed again
    // only then).
    List<String> unwrapped = new ArrayList<>();
    for (String field : envelope.fieldNames()) {
      unwrapped.add(JsonFields.literal(field) + ", _outer.`" + field + "`");
    }
    return bronze
        .withColumn("_json", expr("CAST(value AS STRING)"))
        .withColumn("_outer", expr(ChangeDecoder.parse("_json", envelope.add("payload", "STRING"))))
        .withColumn("_env", expr("CASE WHEN _outer.payload IS NOT NULL THEN from_json(_outer.payload, "
            + JsonFields.literal(envelope.toDDL()) + ") ELSE named_struct(" + String.join(", ", unwrapped) + ") END"))
        .withColumn("op", expr("_env.op"))
        .withColumn("seq", expr(JsonFields.sequence("_env", sequence)))
        .withColumn("ts_ms", expr("try_cast(coalesce(_env.source.ts_ms, _env.ts_ms) AS BIGINT)"))
        .withColumn("image", expr("CASE WHEN _env.op = 'd' THEN _env.before ELSE _env.after END"))
        .withColumn("envelope_error", expr("CASE " + ChangeDecoder.textChecks("_outer")
            + " WHEN op IS NULL THEN 'missing op'"
            + " WHEN op NOT IN ('c', 'u', 'd', 'r', 't') THEN concat('unknown op ''', op, '''')"
            + " " + JsonFields.sequenceChecks("_env", sequence)
            + " WHEN op = 't' THEN NULL"
            + " WHEN image IS NULL OR image = 'null' THEN"
            + " CASE WHEN op = 'd' THEN 'missing before image' ELSE 'missing after image' END"
            + " ELSE NULL END"))
        .drop("_json", "_outer", "_env");
  }
}
