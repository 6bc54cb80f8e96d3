package io.tributary.common.lakehouse;

import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TableName;

/**
 * One table of the lakehouse as a job addresses it: its configured name, its format, the name SQL statements use
 * ({@code lake.silver.orders}, or {@code delta.`<path>`} for Delta), and for Delta the folder it lives in.
 */
public record TableAddress(TableName name, TableFormat format, String sqlName, String deltaPath) {

  /** Where {@code name} lives in {@code format}. */
  public static TableAddress of(Tables tables, TableName name, TableFormat format) {
    return new TableAddress(name, format, tables.sqlName(name, format),
        format == TableFormat.DELTA ? tables.deltaPath(name) : null);
  }

  /** An Iceberg table of catalog {@code catalog}. */
  public static TableAddress iceberg(String catalog, TableName name) {
    return new TableAddress(name, TableFormat.ICEBERG, catalog + "." + name, null);
  }

  /** Whether the table exists: in the catalog (Iceberg), or as a Delta log in its folder. */
  public boolean exists(org.apache.spark.sql.SparkSession spark) {
    return format == TableFormat.DELTA ? io.delta.tables.DeltaTable.isDeltaTable(spark, deltaPath)
        : spark.catalog().tableExists(sqlName);
  }

  /** The SQL name of the table's namespace, for CREATE NAMESPACE (Iceberg; Delta tables need none). */
  public String namespaceSqlName() {
    return sqlName.substring(0, sqlName.length() - name.table().length() - 1);
  }

  @Override
  public String toString() {
    return format == TableFormat.DELTA ? DeltaTableNames.of(name) : sqlName;
  }
}
