package io.tributary.silver;

import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;

/**
 * An application's own Avro records in the Confluent wire format ({@link AvroFrames}), each one a version of the
 * entity, read on as {@link JsonEventDecoder} reads JSON events: the record is the image, with the same op field,
 * sequence and event-time rules.
 */
final class AvroEventDecoder implements ChangeDecoder {
  private final JsonEventDecoder events;
  private final AvroFrames frames;

  AvroEventDecoder(List<String> sequence, Optional<String> opField, List<String> deleteOps,
      Optional<String> eventTimeField, SchemaRegistryClient registry) {
    this.events = new JsonEventDecoder(sequence, opField, deleteOps, eventTimeField);
    this.frames = new AvroFrames(registry, AvroFrames::notARecord);
  }

  @Override
  public Dataset<Row> envelopes(Dataset<Row> bronze) {
    AvroFrames.Framed framed = frames.toJson(bronze);
    return events.envelopesOf(framed.rows(), functions.expr("CAST(_json AS BINARY)"), "_json",
        framed.checks() + ChangeDecoder.readChecks()).drop("_json", "_schema_id");
  }
}
