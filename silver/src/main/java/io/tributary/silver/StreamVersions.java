package io.tributary.silver;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;

/**
 * The schema versions a batch's change events state ({@link StreamColumns} by the {@code schema_version} each
 * record carries): how a column's value is read for the records of each version, and the type a new column gets.
 * Empty for an entity whose columns come from the config, which then reads every value by its column's type alone.
 * Also the fields of each Kafka key schema the records carry (by their {@code key_version}): the source table's
 * primary key, which must still hold the key silver merges by.
 *
 * @param keys the key fields by key version; empty when the entity names its key (silver then merges by that key
 *     whatever the source's primary key is)
 * @param keySetting the setting that names the entity's key, for the advice when the source's key changed
 */
record StreamVersions(String table, Map<Long, StreamColumns> versions, Map<Long, List<String>> keys,
    String keySetting) {
  static StreamVersions none(String table) {
    return new StreamVersions(table, Map.of(), Map.of(), "key");
  }

  /** What a decoder found in a batch: the columns of each value schema version, the fields of each key schema. */
  record Stated(Map<Long, StreamColumns> values, Map<Long, List<String>> keys) {
    static final Stated NONE = new Stated(Map.of(), Map.of());
  }

  /**
   * The CASE branches that quarantine the changes whose Kafka key no longer holds every column of {@code key}: the
   * source table's primary key changed to other columns (or fewer), and merging by the old key could fold rows the
   * source keeps apart. Empty when every key version holds it.
   */
  String keyChecks(List<String> key) {
    Map<List<String>, List<Long>> byFields = new LinkedHashMap<>();
    keys.forEach((version, fields) -> {
      if (!fields.isEmpty() && !fields.containsAll(key)) {
        byFields.computeIfAbsent(fields, ignored -> new ArrayList<>()).add(version);
      }
    });
    StringBuilder sql = new StringBuilder();
    byFields.forEach((fields, ids) -> sql.append(" WHEN array_contains(array(")
        .append(String.join(", ", ids.stream().map(id -> id + "L").toList())).append("), key_version) THEN ")
        .append(JsonFields.literal("the source table's primary key is now (" + String.join(", ", fields)
            + "), which does not hold silver's key (" + String.join(", ", key) + "): merged by the old key, rows the"
            + " source keeps apart could fold into one. Name the key in " + keySetting + " and rebuild " + table)));
    return sql.toString();
  }

  /**
   * The SQL reading the image's value {@code raw} into {@code column}: per schema version, the conversion its semantic
   * type needs where the version states the column with the column's type; {@code fallback} for the other records
   * (a hand-made column, a version without the field, a record without a schema).
   */
  String conversion(StructField column, SemanticTypes.FieldSql raw, String fallback) {
    Map<String, List<Long>> byConversion = new LinkedHashMap<>();
    versions.forEach((version, columns) -> columns.column(column.name(), table)
        .filter(mapped -> mapped.type().equals(column.dataType()))
        .flatMap(SemanticTypes.Mapped::conversion)
        .ifPresent(conversion -> byConversion.computeIfAbsent(conversion.apply(raw), sql -> new ArrayList<>())
            .add(version)));
    if (byConversion.isEmpty()) {
      return fallback;
    }
    // The versions as an array constant, not IN (...): Spark's generated code spells long literals out but keeps
    // array constants as references, so tables whose versions differ (every table of a database: the version is a
    // hash of a schema naming its table) share one compiled class instead of compiling their own each batch.
    StringBuilder sql = new StringBuilder("CASE");
    byConversion.forEach((conversion, ids) -> sql.append(" WHEN array_contains(array(")
        .append(String.join(", ", ids.stream().map(id -> id + "L").toList())).append("), schema_version) THEN ")
        .append(conversion));
    return sql.append(" ELSE ").append(fallback).append(" END").toString();
  }

  /** The type the stream states for a top-level field, from the first version that has it. */
  Optional<DataType> declaredType(String field) {
    for (StreamColumns columns : versions.values()) {
      Optional<SemanticTypes.Mapped> mapped = columns.column(field, table);
      if (mapped.isPresent()) {
        return Optional.of(mapped.get().type());
      }
    }
    return Optional.empty();
  }

  boolean isEmpty() {
    return versions.isEmpty();
  }
}
