package io.tributary.common.lakehouse;

import io.tributary.common.config.SilverDatabase;
import io.tributary.common.config.TableName;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The silver tables of a database block as the catalog has them. Each records, when its stream creates it, the
 * database it belongs to and the topic it is made from, so that status and maintenance find a database's tables
 * without a list in the config, and so that a second topic given the same name by the template is refused rather
 * than merged into another table's rows.
 */
public final class DatabaseTables {
  /** The table property naming the database block a silver table belongs to. */
  public static final String DATABASE = "tributary.silver.database";
  /** The table property naming the topic whose change events the table holds. */
  public static final String SOURCE_TOPIC = "tributary.silver.source-topic";

  private DatabaseTables() {}

  /** Each existing table of {@code database} (in catalog {@code catalog}) with its topic, in name order. */
  public static Map<TableName, String> of(SparkSession spark, String catalog, SilverDatabase database) {
    Map<TableName, String> tables = new LinkedHashMap<>();
    String namespace = catalog + "." + database.namespace();
    if (!spark.catalog().databaseExists(namespace)) {
      return tables;
    }
    for (Row row : spark.sql("SHOW TABLES IN " + namespace).orderBy("tableName").collectAsList()) {
      TableName name = new TableName(database.namespace(), row.getString(row.fieldIndex("tableName")));
      if (!database.mayHold(name)) {
        continue;
      }
      Table table = load(spark, catalog + "." + name);
      if (database.name().equals(table.properties().get(DATABASE))) {
        tables.put(name, table.properties().get(SOURCE_TOPIC));
      }
    }
    return tables;
  }

  private static Table load(SparkSession spark, String table) {
    try {
      return Spark3Util.loadIcebergTable(spark, table);
    } catch (Exception e) {
      throw new IllegalStateException("cannot load " + table + ": " + e.getMessage(), e);
    }
  }
}
