package io.tributary.silver;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The fields a decoder reads from a JSON document in one pass: the dotted paths it needs (op, sequence, images)
 * become one struct whose leaves are strings ({@link JsonEnvelopeReader} fills it), so numbers keep their text and
 * objects their JSON.
 */
final class JsonFields {
  private JsonFields() {}

  /** The struct schema holding every path, e.g. [op, source.lsn] → STRUCT<op: STRING, source: STRUCT<lsn: STRING>>. */
  static StructType schemaOf(List<String> paths) {
    Map<String, Object> tree = new LinkedHashMap<>();
    for (String path : paths) {
      Map<String, Object> node = tree;
      String[] parts = path.split("\\.");
      for (int i = 0; i < parts.length - 1; i++) {
        Object child = node.get(parts[i]);
        if (!(child instanceof Map)) {
          child = new LinkedHashMap<String, Object>();
          node.put(parts[i], child);
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> next = (Map<String, Object>) child;
        node = next;
      }
      node.putIfAbsent(parts[parts.length - 1], "leaf");
    }
    return struct(tree);
  }

  private static StructType struct(Map<String, Object> tree) {
    List<StructField> fields = new ArrayList<>();
    for (Map.Entry<String, Object> entry : tree.entrySet()) {
      @SuppressWarnings("unchecked")
      DataType type = entry.getValue() instanceof Map ? struct((Map<String, Object>) entry.getValue())
          : DataTypes.StringType;
      fields.add(DataTypes.createStructField(entry.getKey(), type, true));
    }
    return DataTypes.createStructType(fields);
  }

  /** The SQL reference to a path below a parsed struct column: {@code _env.`source`.`lsn`}. */
  static String column(String struct, String path) {
    StringBuilder sql = new StringBuilder(struct);
    for (String part : path.split("\\.")) {
      sql.append(".`").append(part.replace("`", "``")).append('`');
    }
    return sql.toString();
  }

  /** A SQL string literal. */
  static String literal(String text) {
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  /**
   * The sequence as ARRAY&lt;BIGINT&gt;: each field's integer, or an ISO timestamp's epoch microseconds; null where a
   * field is missing or neither (see {@link #sequenceChecks}).
   */
  static String sequence(String struct, List<String> paths) {
    if (paths.isEmpty()) {
      return "CAST(array() AS ARRAY<BIGINT>)";
    }
    List<String> elements = new ArrayList<>();
    for (String path : paths) {
      elements.add(sequenceElement(column(struct, path)));
    }
    return "array(" + String.join(", ", elements) + ")";
  }

  private static String sequenceElement(String text) {
    return "coalesce(try_cast(" + text + " AS BIGINT), unix_micros(try_to_timestamp(" + text + ")))";
  }

  /** CASE branches saying why the sequence cannot order this change (none matches when it can). */
  static String sequenceChecks(String struct, List<String> paths) {
    List<String> checks = new ArrayList<>();
    for (String path : paths) {
      String text = column(struct, path);
      checks.add("WHEN " + text + " IS NULL THEN " + literal("missing sequence " + path));
      checks.add("WHEN " + sequenceElement(text) + " IS NULL THEN concat(" + literal("sequence " + path + ": '")
          + ", " + text + ", ''' is not an integer or an ISO timestamp')");
    }
    return String.join(" ", checks);
  }
}
