package io.tributary.bronze;

import io.tributary.common.config.BronzeSource;
import io.tributary.common.config.TableFormat;
import io.tributary.common.lakehouse.Tables;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import io.delta.tables.DeltaTable;
import io.delta.tables.DeltaTableBuilder;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

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
    switch (format) {
      case ICEBERG -> {
        spark.sql("CREATE NAMESPACE IF NOT EXISTS " + tables.catalogName() + "." + source.table().namespace());
        spark.sql("CREATE TABLE IF NOT EXISTS " + sqlName(source) + " (" + COLUMNS + ") USING iceberg"
            + " PARTITIONED BY (days(kafka_timestamp))"
            + properties(icebergProperties(source.tableProperties())));
      }
      case DELTA -> createDelta(spark, source);
    }
  }

  /**
   * Delta has no hidden partitioning: a generated date column stands in for it. Path-based tables take generated
   * columns only through the builder API, not through SQL.
   */
  private void createDelta(SparkSession spark, BronzeSource source) {
    io.tributary.common.lakehouse.UnwritableTableException.requireWritableDelta(spark, deltaPath(source),
        "bronze-" + source.name() + ": " + sqlName(source));
    DeltaTableBuilder builder = DeltaTable.createIfNotExists(spark).location(deltaPath(source));
    for (StructField field : StructType.fromDDL(COLUMNS).fields()) {
      builder = builder.addColumn(field);
    }
    builder = builder.addColumn(DeltaTable.columnBuilder(spark, "kafka_date")
            .dataType(DataTypes.DateType)
            .generatedAlwaysAs("CAST(kafka_timestamp AS DATE)")
            .build())
        .partitionedBy("kafka_date");
    for (Map.Entry<String, String> property : source.tableProperties().entrySet()) {
      builder = builder.property(property.getKey(), property.getValue());
    }
    builder.execute();
  }

  TableFormat format() {
    return format;
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
    // Maintenance commits next to the stream (compaction in several partial commits, expiry); an append never
    // conflicts with them, it only has to retry the metadata swap more often than Iceberg's default 4 times.
    properties.put("commit.retry.num-retries", "10");
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
