package io.tributary.common.config;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.types.StructType;

/**
 * One source entity kept as current state in a silver table, built from its bronze table.
 *
 * @param name the entity's key under {@code tributary.silver.entities}
 * @param source the bronze table the changes come from
 * @param decoder how a bronze record becomes a change
 * @param key the primary key columns (in {@code schema})
 * @param schema the entity's columns, as Spark DDL in the config
 * @param table the silver table
 * @param buckets the silver table is partitioned by {@code bucket(buckets, <first key column>)}
 * @param trigger the micro-batch interval in continuous mode
 * @param maxRowsPerTrigger upper bound of bronze rows per micro-batch
 */
public record SilverEntity(
    String name,
    TableName source,
    Decoder decoder,
    List<String> key,
    StructType schema,
    TableName table,
    long buckets,
    Duration trigger,
    long maxRowsPerTrigger) {

  public enum Decoder {
    /** Debezium's JSON envelope (JSON converter), with or without the schema/payload wrapper. */
    DEBEZIUM_JSON
  }

  static final Set<String> KEYS = Set.of("source", "decoder", "key", "schema", "table", "buckets", "trigger",
      "max-rows-per-trigger");

  static SilverEntity read(String name, ConfigReader reader) {
    reader.rejectUnknownKeys(KEYS);
    StructType schema = schema(reader);
    List<String> key = List.copyOf(reader.stringList("key"));
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
          reader.problem("schema", "column '" + column + "' starts with '_', which Tributary keeps for its own columns");
        }
      }
    }
    return new SilverEntity(name, TableName.parse(reader, "source"), reader.oneOf("decoder", Decoder.class), key,
        schema, TableName.parse(reader, "table"), reader.positiveLong("buckets"), reader.positiveDuration("trigger"),
        reader.positiveLong("max-rows-per-trigger"));
  }

  private static StructType schema(ConfigReader reader) {
    String ddl = reader.string("schema");
    if (ddl == null) {
      return null;
    }
    try {
      return StructType.fromDDL(ddl);
    } catch (RuntimeException e) {
      // Spark's parser message is long; its first line says what is wrong.
      reader.problem("schema", "is not valid Spark DDL such as \"id BIGINT, name STRING\": "
          + e.getMessage().lines().findFirst().orElse(""));
      return null;
    }
  }
}
