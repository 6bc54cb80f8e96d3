package io.tributary.bronze;

import io.tributary.common.config.BronzeSource;
import io.tributary.common.config.TableFormat;
import io.tributary.common.lakehouse.Tables;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;

/**
 * The bronze table of one source: one row per Kafka record, nothing parsed away. Created on first use; Iceberg
 * tables are format v2, partitioned by day of the Kafka timestamp (hidden partitioning), zstd Parquet.
 */
final class BronzeTable {
  /** The bronze row contract; the streaming query selects exactly these columns. */
  static final String COLUMNS = String.join(", ",
      "topic STRING",
      "partition INT",
      "offset BIGINT",
      "kafka_timestamp TIMESTAMP",
      "key BINARY",
      "value BINARY",
      "headers ARRAY<STRUCT<key: STRING, value: BINARY>>",
      "ingested_at TIMESTAMP");

  private final Tables tables;
  private final TableFormat format;

  BronzeTable(Tables tables, TableFormat format) {
    this.tables = tables;
    this.format = format;
  }

  void createIfAbsent(SparkSession spark, BronzeSource source) {
    String name = tables.sqlName(source.table(), format);
    String ddl = switch (format) {
      case ICEBERG -> "CREATE TABLE IF NOT EXISTS " + name + " (" + COLUMNS + ") USING iceberg"
          + " PARTITIONED BY (days(kafka_timestamp))"
          + properties(icebergProperties(source.tableProperties()));
      // Delta has no hidden partitioning: a generated date column stands in for it.
      case DELTA -> "CREATE TABLE IF NOT EXISTS " + name + " (" + COLUMNS
          + ", kafka_date DATE GENERATED ALWAYS AS (CAST(kafka_timestamp AS DATE))) USING delta"
          + " PARTITIONED BY (kafka_date)"
          + properties(source.tableProperties());
    };
    if (format == TableFormat.ICEBERG) {
      spark.sql("CREATE NAMESPACE IF NOT EXISTS " + tables.catalogName() + "." + source.table().namespace());
    }
    spark.sql(ddl);
  }

  String sqlName(BronzeSource source) {
    return tables.sqlName(source.table(), format);
  }

  String deltaPath(BronzeSource source) {
    return tables.deltaPath(source.table());
  }

  static Map<String, String> icebergProperties(Map<String, String> userProperties) {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("format-version", "2");
    properties.put("write.parquet.compression-codec", "zstd");
    // Kafka batches are written as they come: no shuffle before the write, one open file per day partition.
    properties.put("write.distribution-mode", "none");
    properties.put("write.spark.fanout.enabled", "true");
    // A stream commits every few seconds; old metadata files would pile up without this.
    properties.put("write.metadata.delete-after-commit.enabled", "true");
    properties.put("write.metadata.previous-versions-max", "100");
    properties.putAll(userProperties);
    return properties;
  }

  private static String properties(Map<String, String> properties) {
    if (properties.isEmpty()) {
      return "";
    }
    return " TBLPROPERTIES (" + properties.entrySet().stream()
        .map(entry -> quote(entry.getKey()) + " = " + quote(entry.getValue()))
        .collect(Collectors.joining(", ")) + ")";
  }

  private static String quote(String text) {
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }
}
