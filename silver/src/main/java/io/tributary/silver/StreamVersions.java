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
 */
record StreamVersions(String table, Map<Long, StreamColumns> versions) {
  static StreamVersions none(String table) {
    return new StreamVersions(table, Map.of());
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
