package io.tributary.silver;

import static org.apache.spark.sql.functions.expr;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;

/**
 * Plain JSON events, each one a version of the entity (an application's own events, or a compacted topic's
 * values): the whole event is the image. An optional op field marks deletes; everything else is an upsert. The
 * sequence fields order a key's versions; with none, the latest record in Kafka wins. The change's time is the
 * event-time field (an ISO timestamp or epoch milliseconds), or the Kafka timestamp.
 */
final class JsonEventDecoder implements ChangeDecoder {
  private final List<String> sequence;
  private final Optional<String> opField;
  private final List<String> deleteOps;
  private final Optional<String> eventTimeField;

  JsonEventDecoder(List<String> sequence, Optional<String> opField, List<String> deleteOps,
      Optional<String> eventTimeField) {
    this.sequence = sequence;
    this.opField = opField;
    this.deleteOps = deleteOps;
    this.eventTimeField = eventTimeField;
  }

  @Override
  public Dataset<Row> envelopes(Dataset<Row> bronze) {
    return envelopesOf(bronze, functions.col("value"), "CAST(value AS STRING)", ChangeDecoder.textChecks());
  }

  /**
   * The events in {@code document} (BINARY, UTF-8 JSON), as {@link #envelopes}; {@code text} is the SQL of the same
   * JSON as text (the image), {@code valueChecks} the CASE branches that come first, saying why a value is not an
   * event (the JSON read is in {@link ChangeDecoder#READ}).
   */
  Dataset<Row> envelopesOf(Dataset<Row> rows, Column document, String text, String valueChecks) {
    List<String> paths = new ArrayList<>(sequence);
    opField.ifPresent(paths::add);
    eventTimeField.ifPresent(paths::add);
    List<String> checks = new ArrayList<>();
    checks.add(valueChecks);
    opField.ifPresent(field -> checks.add("WHEN " + JsonFields.column("_event", field) + " IS NULL THEN "
        + JsonFields.literal("missing op field " + field)));
    if (!sequence.isEmpty()) {
      checks.add(JsonFields.sequenceChecks("_event", sequence));
    }
    eventTimeField.ifPresent(field -> checks.add("WHEN " + JsonFields.column("_event", field) + " IS NULL THEN "
        + JsonFields.literal("missing event time " + field) + " WHEN ts_ms IS NULL THEN concat("
        + JsonFields.literal("event time " + field + ": '") + ", " + JsonFields.column("_event", field)
        + ", ''' is not an ISO timestamp or epoch milliseconds')"));
    String deletes = String.join(", ", deleteOps.stream().map(JsonFields::literal).toList());
    String op = opField.map(field -> "CASE WHEN " + JsonFields.column("_event", field) + " IN (" + deletes
        + ") THEN 'd' ELSE 'u' END").orElse("'u'");
    String eventTime = eventTimeField.map(field -> JsonFields.column("_event", field))
        .map(time -> "CASE WHEN " + time + " RLIKE '^-?[0-9]+$' THEN try_cast(" + time + " AS BIGINT)"
            + " ELSE unix_millis(try_to_timestamp(" + time + ")) END")
        .orElse("unix_millis(kafka_timestamp)");
    return rows
        .withColumn(ChangeDecoder.READ, JsonEnvelopeReader.read(document, JsonFields.schemaOf(paths),
            JsonEnvelopeReader.Kind.EVENT))
        .withColumn("_event", expr(ChangeDecoder.READ + ".fields"))
        .withColumn("op", expr("CASE WHEN value IS NULL THEN NULL ELSE " + op + " END"))
        .withColumn("seq", expr(JsonFields.sequence("_event", sequence)))
        .withColumn(ChangeDecoder.SEQ_BYTES, expr("CAST(NULL AS BINARY)"))
        .withColumn("ts_ms", expr(eventTime))
        .withColumn("image", expr(text))
        .withColumn("envelope_error", expr("CASE " + String.join(" ", checks) + " ELSE NULL END"))
        .drop(ChangeDecoder.READ, "_event");
  }
}
