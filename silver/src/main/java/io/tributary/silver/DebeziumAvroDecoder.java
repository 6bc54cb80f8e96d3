package io.tributary.silver;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;

/**
 * Debezium change events in Avro, in the Confluent wire format ({@link AvroFrames}), read on as Debezium JSON is
 * ({@link DebeziumJsonDecoder}): the same op, order, time and image rules, and the same quarantine reasons.
 * Debezium's semantic types arrive as the JSON converter writes them (a {@code MicroTimestamp} is a long); with
 * columns from the stream, each record's writer schema id is its {@code schema_version}.
 */
final class DebeziumAvroDecoder implements ChangeDecoder {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(DebeziumAvroDecoder.class);
  private final DebeziumJsonDecoder envelopes;
  private final AvroFrames frames;
  private final SchemaSource columns;
  private final SchemaRegistryClient registry;

  /**
   * @param sequence the envelope fields that order a key's changes; none means the connector's own order
   * @param columns where the entity's columns come from
   */
  DebeziumAvroDecoder(List<String> sequence, SchemaSource columns, SchemaRegistryClient registry) {
    this.envelopes = new DebeziumJsonDecoder(sequence, SchemaSource.CONFIG);
    this.frames = new AvroFrames(registry, DebeziumAvroDecoder::notAnEnvelope);
    this.columns = columns;
    this.registry = registry;
  }

  @Override
  public Dataset<Row> envelopes(Dataset<Row> bronze) {
    AvroFrames.Framed framed = frames.toJson(bronze);
    Dataset<Row> rows = envelopes.envelopesOf(framed.rows(), functions.expr("CAST(_json AS BINARY)"),
        framed.checks() + ChangeDecoder.readChecks()).drop("_json");
    return columns == SchemaSource.STREAM ? rows.withColumnRenamed("_schema_id", "schema_version")
        .withColumn("key_version", functions.expr(AvroFrames.schemaId("key"))) : rows.drop("_schema_id");
  }

  @Override
  public StreamVersions.Stated stated(Dataset<Row> envelopes) {
    if (columns != SchemaSource.STREAM) {
      return StreamVersions.Stated.NONE;
    }
    Map<Long, StreamColumns> versions = new LinkedHashMap<>();
    Map<Long, List<String>> keys = new LinkedHashMap<>();
    // The ids come from the five header bytes alone: filtering on the envelope's checks here would decode every
    // record a second time. Ids without a usable envelope schema are left out; their records are quarantined.
    for (Row version : envelopes.where("schema_version IS NOT NULL").select("schema_version", "key_version")
        .distinct().collectAsList()) {
      long id = version.getLong(0);
      if (!versions.containsKey(id)) {
        Optional<Schema> schema = writerSchema(id);
        Optional<String> problem = schema.isEmpty() ? Optional.of("is unknown to the registry or not valid Avro")
            : notAnEnvelope(schema.get());
        Optional<StreamColumns> found = problem.isPresent() ? Optional.empty()
            : StreamColumns.ofEnvelope(ConnectType.ofAvro(schema.get()));
        if (found.isPresent()) {
          versions.put(id, found.get());
        } else {
          LOG.warn("Writer schema id {} states no columns: {}", id,
              problem.orElse("its envelope has no after or before record"));
        }
      }
      if (!version.isNullAt(1) && !keys.containsKey(version.getLong(1))) {
        writerSchema(version.getLong(1)).ifPresent(key -> keys.put(version.getLong(1),
            StreamColumns.keyOf(ConnectType.ofAvro(key))));
      }
    }
    return new StreamVersions.Stated(versions, keys);
  }

  @Override
  public Optional<ConnectType> keySchema(Dataset<Row> bronze) {
    List<Row> first = bronze.where("key IS NOT NULL").selectExpr(AvroFrames.schemaId("key") + " AS id")
        .where("id IS NOT NULL").limit(1).collectAsList();
    return first.isEmpty() ? Optional.empty() : writerSchema(first.get(0).getLong(0)).map(ConnectType::ofAvro);
  }

  /** The writer schema of {@code id}; empty when the registry has none or it is not valid Avro (quarantined). */
  private Optional<Schema> writerSchema(long id) {
    Optional<String> text = id > Integer.MAX_VALUE ? Optional.empty() : registry.schema((int) id);
    try {
      return text.map(AvroJson::parseWriterSchema);
    } catch (org.apache.avro.SchemaParseException e) {
      return Optional.empty();
    }
  }

  /** Why a writer schema cannot hold Debezium's envelope, if it cannot. */
  private static Optional<String> notAnEnvelope(Schema schema) {
    if (schema.getType() != Schema.Type.RECORD || schema.getField("op") == null) {
      return Optional.of("is not a Debezium envelope (a record with an op field): " + schema.getFullName());
    }
    return Optional.empty();
  }
}
