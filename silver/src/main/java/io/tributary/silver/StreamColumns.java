package io.tributary.silver;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The entity's columns as one version of the change stream's schema states them: the fields of the Debezium
 * envelope's {@code after} (else {@code before}) struct, in order, with their Connect types.
 */
record StreamColumns(Map<String, ConnectType> columns) {

  /** The columns of a Debezium envelope's schema; empty when it has no after or before struct. */
  static Optional<StreamColumns> ofEnvelope(ConnectType envelope) {
    return envelope.field("after").or(() -> envelope.field("before"))
        .filter(image -> image.type().equals("struct"))
        .map(image -> {
          Map<String, ConnectType> columns = new LinkedHashMap<>();
          image.fields().forEach(field -> columns.put(field.name(), field.type()));
          return new StreamColumns(java.util.Collections.unmodifiableMap(columns));
        });
  }

  /** The column of field {@code name}, if this version has it. */
  Optional<SemanticTypes.Mapped> column(String name, String table) {
    ConnectType type = columns.get(name);
    return type == null ? Optional.empty() : Optional.of(SemanticTypes.column(type, where(table, name)));
  }

  /** Every column as Spark types; fails naming the table and field of a type that cannot be mapped. */
  StructType schema(String table) {
    List<StructField> fields = new ArrayList<>();
    columns.forEach((name, type) -> fields.add(DataTypes.createStructField(name,
        SemanticTypes.column(type, where(table, name)).type(), true)));
    return DataTypes.createStructType(fields);
  }

  /** The key columns a Kafka key's schema names: the fields of its struct. */
  static List<String> keyOf(ConnectType keySchema) {
    return keySchema.type().equals("struct")
        ? keySchema.fields().stream().map(ConnectType.Field::name).toList() : List.of();
  }

  private static String where(String table, String field) {
    return table + ", field " + field;
  }
}
