package io.tributary.silver;

import io.tributary.silver.Truncates.Truncate;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataType;

/**
 * What a decoded batch holds, in one pass over it: how many records there are, how many are rejected, how many are
 * changes and how many Kafka tombstones (null values), the fields the schema does not know, the columns that need a
 * wider type, the truncates, and the type and span of the changes' first key column ({@link KeyRange#span}; null
 * when there is none).
 */
record BatchSummary(long records, long rejected, long changes, long tombstones, List<String> unknownFields,
    List<String> widen, List<Truncate> truncates, DataType keyType, Row keySpan) {

  /** The summary of {@code decoded}, whose changes' first key column is {@code key}. */
  static BatchSummary of(Dataset<Row> decoded, String key) {
    DataType keyType = decoded.select("row." + Columns.quote(key)).schema().fields()[0].dataType();
    String change = "error IS NULL AND NOT tombstone AND op <> 't'";
    String span = KeyRange.span("CASE WHEN " + change + " THEN row." + Columns.quote(key) + " END", keyType)
        .orElse("CAST(NULL AS STRUCT<lowest: BIGINT, highest: BIGINT>)");
    Row row = decoded.selectExpr(
        "count(*)",
        "count_if(tombstone)",
        "count_if(error IS NOT NULL)",
        "count_if(" + change + ")",
        distinctNames("unknown_fields"),
        distinctNames("widen"),
        "collect_list(CASE WHEN error IS NULL AND op = 't' THEN named_struct('seq', seq,"
            + " 'ts_ms', coalesce(ts_ms, unix_millis(kafka_timestamp)), 'topic', topic, 'partition', partition,"
            + " 'offset', offset) END)",
        span)
        .first();
    List<Truncate> truncates = new ArrayList<>();
    for (Row truncate : row.<Row>getList(6)) {
      truncates.add(new Truncate(truncate.getList(0), truncate.getLong(1), truncate.getString(2), truncate.getInt(3),
          truncate.getLong(4)));
    }
    return new BatchSummary(row.getLong(0), row.getLong(2), row.getLong(3), row.getLong(1), row.getList(4),
        row.getList(5), truncates, keyType, row.isNullAt(7) ? null : row.getStruct(7));
  }

  /**
   * The distinct names in the batch's lists of names {@code column}, sorted. Only the non-empty lists are collected:
   * collect_list keeps an empty array (it is not null), and merging a list of an empty array per record took
   * 0.4-1.3 s of a batch of 1M records (now 0.05 s).
   */
  private static String distinctNames(String column) {
    return "array_sort(array_distinct(flatten(collect_list(CASE WHEN size(" + column + ") > 0 THEN " + column
        + " END))))";
  }

  boolean needsSchemaChange() {
    return !unknownFields.isEmpty() || !widen.isEmpty();
  }
}
