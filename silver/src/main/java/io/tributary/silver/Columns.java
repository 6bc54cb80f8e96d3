package io.tributary.silver;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The column lists a merge statement needs: the entity's (key first) and the Tributary change columns its table has
 * ({@code change}, a subset of {@link SilverTables#CHANGE_NAMES}: a table of an earlier Tributary lacks some).
 */
record Columns(StructType schema, List<String> key, List<String> change) {
  /** Every column of a current-state row, quoted. */
  List<String> all() {
    List<String> all = new ArrayList<>(entity());
    all.addAll(change);
    return all;
  }

  /** Whether the table keeps {@link SequenceBytes#COLUMN} beside {@code _seq}. */
  boolean hasSequenceBytes() {
    return change.contains(SequenceBytes.COLUMN);
  }

  List<String> entity() {
    List<String> columns = new ArrayList<>();
    for (StructField field : schema.fields()) {
      columns.add(quote(field.name()));
    }
    return columns;
  }

  /** The entity's non-key columns, with their types. */
  List<StructField> values() {
    List<StructField> values = new ArrayList<>();
    for (StructField field : schema.fields()) {
      if (!key.contains(field.name())) {
        values.add(field);
      }
    }
    return values;
  }

  /** {@code t.k1 = s.k1 AND ...} */
  String keyMatch(String target, String source) {
    return String.join(" AND ", key.stream().map(k -> target + "." + quote(k) + " = " + source + "." + quote(k))
        .toList());
  }

  String keyList() {
    return String.join(", ", key.stream().map(Columns::quote).toList());
  }

  /**
   * Whether the change in {@code source} orders after the row in {@code target}: sequence, then Kafka position. The
   * sequence is compared as {@link SequenceBytes} where the table keeps them, so the table's side reads no array.
   */
  String newer(String source, String target) {
    String sequence = hasSequenceBytes() ? SequenceBytes.COLUMN : "_seq";
    return "named_struct('s', " + source + "." + sequence + ", 'p', " + source + "._source_partition, 'o', " + source
        + "._source_offset) > named_struct('s', " + target + "." + sequence + ", 'p', " + target
        + "._source_partition, 'o', " + target + "._source_offset)";
  }

  static String quote(String name) {
    return "`" + name.replace("`", "``") + "`";
  }
}
