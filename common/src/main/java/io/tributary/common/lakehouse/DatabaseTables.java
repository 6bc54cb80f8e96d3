package io.tributary.common.lakehouse;

import io.tributary.common.config.SilverDatabase;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
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

  /** Each existing table of {@code database} in the config's silver format, with its topic, in name order. */
  public static Map<TableName, String> of(SparkSession spark, TributaryConfig config, SilverDatabase database) {
    return of(spark, new Tables(config.catalog()), config.silver().format(), database);
  }

  /** Each existing table of {@code database} kept in {@code format}, with its topic, in name order. */
  public static Map<TableName, String> of(SparkSession spark, Tables tables, TableFormat format,
      SilverDatabase database) {
    Map<TableName, String> found = new LinkedHashMap<>();
    for (TableName name : candidates(spark, tables, format, database.namespace())) {
      if (!database.mayHold(name)) {
        continue;
      }
      Map<String, String> properties = properties(spark, tables, format, name);
      if (database.name().equals(properties.get(DATABASE))) {
        found.put(name, properties.get(SOURCE_TOPIC));
      }
    }
    return found;
  }

  private static List<TableName> candidates(SparkSession spark, Tables tables, TableFormat format, String namespace) {
    if (format == TableFormat.DELTA) {
      return DeltaTableNames.in(spark, tables, namespace);
    }
    String qualified = tables.catalogName() + "." + namespace;
    if (!spark.catalog().databaseExists(qualified)) {
      return List.of();
    }
    return spark.sql("SHOW TABLES IN " + qualified).orderBy("tableName").collectAsList().stream()
        .map(row -> new TableName(namespace, row.getString(row.fieldIndex("tableName")))).toList();
  }

  private static Map<String, String> properties(SparkSession spark, Tables tables, TableFormat format,
      TableName name) {
    if (format == TableFormat.DELTA) {
      return scala.jdk.javaapi.CollectionConverters.asJava(org.apache.spark.sql.delta.DeltaLog.forTable(spark,
          tables.deltaPath(name)).update(false, scala.Option.empty(), scala.Option.empty()).metadata()
          .configuration());
    }
    return load(spark, tables.catalogName() + "." + name).properties();
  }

  private static Table load(SparkSession spark, String table) {
    try {
      return Spark3Util.loadIcebergTable(spark, table);
    } catch (Exception e) {
      throw new IllegalStateException("cannot load " + table + ": " + e.getMessage(), e);
    }
  }
}
