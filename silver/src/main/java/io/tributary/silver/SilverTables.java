package io.tributary.silver;

import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableName;
import org.apache.spark.sql.SparkSession;

/** Creates the silver and quarantine tables on first use (Iceberg v2, merge-on-read for cheap MERGE commits). */
final class SilverTables {
  /**
   * Tributary's columns next to the entity's: the applied change's op, sequence, and where it came from.
   * ({@code _is_deleted}, not {@code _deleted}: Iceberg reserves that name for a metadata column.)
   */
  static final String CHANGE_COLUMNS = "_op STRING, _seq BIGINT, _ts_ms BIGINT, _is_deleted BOOLEAN,"
      + " _source_topic STRING, _source_partition INT, _source_offset BIGINT, _updated_at TIMESTAMP";

  static final String QUARANTINE_COLUMNS = "topic STRING, partition INT, offset BIGINT, kafka_timestamp TIMESTAMP,"
      + " key BINARY, value BINARY, entity STRING, stage STRING, reason STRING, quarantined_at TIMESTAMP";

  private static final String PROPERTIES = " TBLPROPERTIES ('format-version' = '2',"
      + " 'write.merge.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read',"
      + " 'write.delete.mode' = 'merge-on-read', 'write.parquet.compression-codec' = 'zstd')";

  private SilverTables() {}

  static void createEntityTable(SparkSession spark, String catalog, SilverEntity entity) {
    createNamespace(spark, catalog, entity.table());
    spark.sql("CREATE TABLE IF NOT EXISTS " + catalog + "." + entity.table() + " (" + entity.schema().toDDL() + ", "
        + CHANGE_COLUMNS + ") USING iceberg PARTITIONED BY (bucket(" + entity.buckets() + ", `" + entity.key().get(0)
        + "`))" + PROPERTIES);
  }

  static void createQuarantineTable(SparkSession spark, String catalog, TableName quarantine) {
    createNamespace(spark, catalog, quarantine);
    spark.sql("CREATE TABLE IF NOT EXISTS " + catalog + "." + quarantine + " (" + QUARANTINE_COLUMNS + ") USING iceberg"
        + " PARTITIONED BY (entity, days(quarantined_at))" + PROPERTIES);
  }

  private static void createNamespace(SparkSession spark, String catalog, TableName table) {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS " + catalog + "." + table.namespace());
  }
}
