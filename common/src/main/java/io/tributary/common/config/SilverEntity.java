package io.tributary.common.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.types.StructType;

/**
 * One source entity kept in a silver table, built from its bronze table.
 *
 * @param name the entity's key under {@code tributary.silver.entities}
 * @param source the bronze table the changes come from
 * @param decoder how a bronze record becomes a change
 * @param key the primary key columns (in {@code schema}); empty for a Debezium decoder means the fields of the
 *     Kafka key's schema
 * @param sequence the paths, in the decoded record, of the fields that order a key's changes (compared in turn;
 *     then the Kafka partition and offset); empty means the latest record in Kafka wins for {@link Decoder#JSON},
 *     and each connector's own position (from {@code source.connector}) for {@link Decoder#DEBEZIUM_JSON}
 * @param opField for {@link Decoder#JSON} and {@link Decoder#AVRO}: the field naming the operation; absent means
 *     every event is an upsert
 * @param deleteOps for {@link Decoder#JSON} and {@link Decoder#AVRO}: values of {@code opField} that delete the key
 * @param eventTimeField for {@link Decoder#JSON} and {@link Decoder#AVRO}: the field holding the change's time;
 *     absent means the Kafka
 *     timestamp
 * @param schema the entity's columns, as Spark DDL in the config; null for a Debezium decoder means the columns
 *     come from the change stream's schema (the JSON envelope's schema block, or the Avro writer schema)
 * @param table the silver table
 * @param buckets the silver table is partitioned by {@code bucket(buckets, <first key column>)}
 * @param formatVersion the Iceberg format version of a table created for the entity: 3 (deletion vectors) or 2 (for
 *     readers without format 3); a table that exists keeps its own
 * @param deleteMode whether a delete leaves a tombstone row or removes the row
 * @param history current state only, or every version with its validity interval (SCD type 2)
 * @param schemaEvolution what a field that the schema does not know does to the table and the record
 * @param trigger the micro-batch interval in continuous mode
 * @param maxRowsPerTrigger upper bound of bronze rows per micro-batch from an Iceberg bronze table
 * @param maxFilesPerTrigger upper bound of bronze files per micro-batch from a Delta bronze table (Delta's stream
 *     counts files, not rows)
 * @param maxQuarantineRatio the share of a batch's records that one reason may send to quarantine before the batch
 *     fails as a likely misconfiguration (1 lets any share through)
 * @param configPath where the user configures the entity ({@code tributary.silver.entities.customers}, or a table's
 *     block in a database), for messages that name a setting
 */
public record SilverEntity(
    String name,
    TableName source,
    Decoder decoder,
    List<String> key,
    List<String> sequence,
    Optional<String> opField,
    List<String> deleteOps,
    Optional<String> eventTimeField,
    StructType schema,
    TableName table,
    long buckets,
    int formatVersion,
    DeleteMode deleteMode,
    History history,
    SchemaEvolution schemaEvolution,
    Duration trigger,
    long maxRowsPerTrigger,
    long maxFilesPerTrigger,
    double maxQuarantineRatio,
    String configPath) {

  /** Whether the entity's columns come from the change stream's own schema rather than from the config. */
  public boolean columnsFromStream() {
    return schema == null;
  }

  /** The same entity kept in another table (a rebuild builds its shadow table so). */
  public SilverEntity withTable(TableName other) {
    return new SilverEntity(name, source, decoder, key, sequence, opField, deleteOps, eventTimeField, schema, other,
        buckets, formatVersion, deleteMode, history, schemaEvolution, trigger, maxRowsPerTrigger, maxFilesPerTrigger,
        maxQuarantineRatio, configPath);
  }

  /** The full path of one of the entity's settings, for a message that names it. */
  public String setting(String key) {
    return configPath + "." + key;
  }

  public enum Decoder {
    /** Debezium's JSON envelope (JSON converter), with or without the schema/payload wrapper. */
    DEBEZIUM_JSON,
    /**
     * Debezium's envelope in Avro, in the Confluent wire format (byte 0, a 4-byte schema id, Avro binary), with the
     * writer schemas fetched by id from {@code tributary.schema-registry}.
     */
    DEBEZIUM_AVRO,
    /** Plain JSON events, one per entity version: upserts, or deletes named by an op field. */
    JSON,
    /** An application's own Avro records in the Confluent wire format, read as {@link #JSON} reads its events. */
    AVRO;

    /** Whether records are Debezium change events (their envelope names op, time and source position). */
    public boolean isDebezium() {
      return this == DEBEZIUM_JSON || this == DEBEZIUM_AVRO;
    }

    /** Whether records are Avro in the Confluent wire format (the writer schemas come from the registry). */
    public boolean isAvro() {
      return this == DEBEZIUM_AVRO || this == AVRO;
    }
  }

  public enum DeleteMode {
    /** The row stays, marked {@code _is_deleted}, so that a late, older change cannot bring the key back. */
    TOMBSTONE,
    /** The row is removed; a change older than the delete that arrives later re-inserts the key. */
    HARD
  }

  public enum History {
    /** One row per key: its latest version. */
    CURRENT,
    /** One row per version, with {@code _valid_from}, {@code _valid_to} and {@code _is_current}. */
    SCD2
  }

  public enum SchemaEvolution {
    /** New fields become columns (nested fields too); int and float columns widen to bigint and double. */
    EVOLVE,
    /** New fields are dropped; the record is applied with the known columns. */
    IGNORE,
    /** A record with a new field goes to quarantine. */
    QUARANTINE
  }

  static final Set<String> KEYS = Set.of("source", "decoder", "key", "sequence", "op-field", "delete-ops",
      "event-time-field", "schema", "table", "buckets", "format-version", "delete-mode", "history", "schema-evolution",
      "trigger", "max-rows-per-trigger", "max-files-per-trigger", "max-quarantine-ratio");

  /** A Debezium entity without {@code sequence}: each connector's own position orders the changes. */
  private static final List<String> CONNECTOR_ORDER = List.of();

  static SilverEntity read(String name, ConfigReader reader) {
    reader.rejectUnknownKeys(KEYS);
    Decoder decoder = reader.oneOf("decoder", Decoder.class);
    boolean fromStream = decoder != null && decoder.isDebezium();
    StructType schema = fromStream && !reader.has("schema") ? null : schema(reader, decoder);
    List<String> key = fromStream && !reader.has("key") ? List.of() : List.copyOf(reader.stringList("key"));
    if (schema != null) {
      List<String> columns = List.of(schema.fieldNames());
      for (String column : key) {
        if (!columns.contains(column)) {
          reader.problem("key", "column '" + column + "' is not in the schema (columns: " + String.join(", ", columns)
              + ")");
        }
      }
      for (String column : columns) {
        if (column.startsWith("_")) {
          reader.valueProblem("schema", "column '" + column + "' starts with '_', which Tributary keeps for its own"
              + " columns");
        }
      }
    }
    List<String> sequence = reader.optionalStringList("sequence");
    if (sequence == null && decoder.isDebezium()) {
      sequence = CONNECTOR_ORDER;
    } else if (sequence != null && sequence.isEmpty() && decoder.isDebezium()) {
      reader.problem("sequence", "must name at least one envelope field for a Debezium decoder, e.g."
          + " [\"source.lsn\"], or be left out to order changes by each connector's own position");
    } else if (sequence == null && !decoder.isDebezium()) {
      reader.problem("sequence", "is missing: name the event's version field(s), e.g. [\"seq\"], or set [] to let"
          + " the latest record in Kafka win");
      sequence = List.of();
    }
    Optional<String> opField = reader.optionalString("op-field");
    Optional<String> eventTimeField = reader.optionalString("event-time-field");
    List<String> deleteOps = reader.optionalStringList("delete-ops");
    if (decoder.isDebezium()) {
      for (String jsonOnly : List.of("op-field", "delete-ops", "event-time-field")) {
        if (reader.has(jsonOnly)) {
          reader.problem(jsonOnly, "applies to decoder = json or avro only; Debezium's envelope names its op and time");
        }
      }
    }
    if (deleteOps != null && opField.isEmpty() && !decoder.isDebezium()) {
      reader.problem("delete-ops", "needs op-field, the field whose value names the operation");
    }
    DeleteMode deleteMode = reader.oneOf("delete-mode", DeleteMode.class);
    History history = reader.oneOf("history", History.class);
    if (history == History.SCD2 && sequence.isEmpty() && !decoder.isDebezium()) {
      reader.problem("sequence", "must name the field(s) that order versions when history = scd2; [] cannot order"
          + " a key's history");
    }
    if (deleteOps != null && deleteOps.isEmpty()) {
      reader.valueProblem("delete-ops", "must not be empty; leave it out for the default [\"d\", \"delete\"]");
    }
    if (deleteMode == DeleteMode.HARD && history == History.SCD2) {
      reader.problem("delete-mode", "hard cannot be combined with history = scd2, which keeps every version");
    }
    return new SilverEntity(name, TableName.parse(reader, "source"), decoder, key, List.copyOf(sequence), opField,
        deleteOps == null ? List.of("d", "delete") : List.copyOf(deleteOps), eventTimeField, schema,
        TableName.parse(reader, "table"), reader.positiveLong("buckets"), formatVersion(reader), deleteMode, history,
        reader.oneOf("schema-evolution", SchemaEvolution.class), reader.positiveDuration("trigger"),
        reader.positiveLong("max-rows-per-trigger"), reader.positiveLong("max-files-per-trigger"), reader.ratio("max-quarantine-ratio"), reader.prefix());
  }

  /** Iceberg format versions a silver table can be created with. */
  private static final List<Long> FORMAT_VERSIONS = List.of(2L, 3L);

  private static int formatVersion(ConfigReader reader) {
    long version = reader.positiveLong("format-version");
    if (version > 0 && !FORMAT_VERSIONS.contains(version)) { // not a positive number: reported already
      reader.valueProblem("format-version", "must be 3 (deletion vectors, the default) or 2 (for readers that do not"
          + " read Iceberg format 3 yet); got " + version);
    }
    return (int) version;
  }

  private static StructType schema(ConfigReader reader, Decoder decoder) {
    if (!reader.has("schema")) {
      reader.valueProblem("schema", "is missing: decoder = " + (decoder == null ? "json or avro"
          : ConfigNames.of(decoder)) + " needs the entity's columns as"
          + " Spark DDL, e.g. \"id BIGINT, name STRING\" (Debezium decoders take them from the change stream)");
      return null;
    }
    String ddl = reader.string("schema");
    if (ddl == null) {
      return null;
    }
    try {
      return StructType.fromDDL(ddl);
    } catch (RuntimeException e) {
      // Spark's parser message is long; its first line says what is wrong.
      reader.valueProblem("schema", "is not valid Spark DDL such as \"id BIGINT, name STRING\": "
          + e.getMessage().lines().findFirst().orElse(""));
      return null;
    }
  }
}
