package io.tributary.silver;

import java.util.List;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Debezium change events in Avro, in the Confluent wire format ({@link AvroFrames}), read on as Debezium JSON is
 * ({@link DebeziumJsonDecoder}): the same op, order, time and image rules, and the same quarantine reasons.
 * Debezium's semantic types arrive as the JSON converter writes them (a {@code MicroTimestamp} is a long).
 */
final class DebeziumAvroDecoder implements ChangeDecoder {
  private final DebeziumJsonDecoder envelopes;
  private final AvroFrames frames;

  /** @param sequence the envelope fields that order a key's changes; none means the connector's own order */
  DebeziumAvroDecoder(List<String> sequence, SchemaRegistryClient registry) {
    this.envelopes = new DebeziumJsonDecoder(sequence);
    this.frames = new AvroFrames(registry, DebeziumAvroDecoder::notAnEnvelope);
  }

  @Override
  public Dataset<Row> envelopes(Dataset<Row> bronze) {
    AvroFrames.Framed framed = frames.toJson(bronze);
    return envelopes.envelopesOfText(framed.rows(), framed.checks()).drop("_schema_id");
  }

  /** Why a writer schema cannot hold Debezium's envelope, if it cannot. */
  private static Optional<String> notAnEnvelope(Schema schema) {
    if (schema.getType() != Schema.Type.RECORD || schema.getField("op") == null) {
      return Optional.of("is not a Debezium envelope (a record with an op field): " + schema.getFullName());
    }
    return Optional.empty();
  }
}
