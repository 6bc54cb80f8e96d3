package io.tributary.bronze;

import io.tributary.common.config.TableName;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * Where accepted data loss is written down: one row per skipped range in {@code <bronze namespace>._lost_offsets}
 * (an Iceberg table next to the bronze tables), so that a gap in bronze is a fact one can query, not a log line.
 */
final class LostOffsetsLog {
  static final String TABLE = "_lost_offsets";

  private static final StructType SCHEMA = StructType.fromDDL("source STRING, bronze_table STRING, topic STRING,"
      + " partition INT, from_offset BIGINT, to_offset BIGINT, records BIGINT, detected_at TIMESTAMP,"
      + " accepted_by STRING");

  private LostOffsetsLog() {}

  /** The log table's SQL name for bronze tables in {@code bronzeTable}'s namespace. */
  static String tableFor(String catalog, TableName bronzeTable) {
    return catalog + "." + bronzeTable.namespace() + "." + TABLE;
  }

  /**
   * Appends the skipped ranges ({@code to_offset} exclusive).
   *
   * @param acceptedBy what accepted the loss, e.g. "on-data-loss = skip" or "reingest --accept-data-loss"
   */
  static void record(SparkSession spark, String catalog, TableName bronzeTable, LostOffsets lost, String acceptedBy)
      throws Exception {
    if (lost.isEmpty()) {
      return;
    }
    String table = tableFor(catalog, bronzeTable);
    spark.sql("CREATE TABLE IF NOT EXISTS " + table + " (" + SCHEMA.toDDL() + ") USING iceberg"
        + " TBLPROPERTIES ('format-version' = '2', 'commit.retry.num-retries' = '10')");
    // A stream that skipped a gap and stopped before committing past it finds the same gap at its next start.
    java.util.Set<String> recorded = new java.util.HashSet<>();
    for (Row row : spark.sql("SELECT topic, `partition`, from_offset, to_offset FROM " + table + " WHERE source = '"
        + lost.sourceName().replace("'", "\\'") + "'").collectAsList()) {
      recorded.add(row.getString(0) + "/" + row.getInt(1) + "/" + row.getLong(2) + "/" + row.getLong(3));
    }
    Timestamp now = new Timestamp(System.currentTimeMillis());
    List<Row> rows = new ArrayList<>();
    for (LostOffsets.Range range : lost.ranges()) {
      if (recorded.contains(range.topic() + "/" + range.partition() + "/" + range.from() + "/" + range.to())) {
        continue;
      }
      rows.add(RowFactory.create(lost.sourceName(), lost.table(), range.topic(), range.partition(), range.from(),
          range.to(), range.count(), now, acceptedBy));
    }
    if (!rows.isEmpty()) {
      spark.createDataFrame(rows, SCHEMA).writeTo(table).append();
    }
  }
}
