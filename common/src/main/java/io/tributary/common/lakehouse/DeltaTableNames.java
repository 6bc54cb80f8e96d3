package io.tributary.common.lakehouse;

import io.delta.tables.DeltaTable;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import java.util.LinkedHashSet;
import java.util.Set;
import org.apache.spark.sql.SparkSession;

/**
 * Gives Delta tables names in Spark's session catalog ({@code spark_catalog.<namespace>.<table>}), so that a user's
 * SQL names a Delta table as it names an Iceberg one, without its path. Tributary's jobs address Delta tables by path
 * ({@link Tables#sqlName}), which holds whatever the session catalog is; the names are for people and notebooks.
 *
 * <p>Spark's own session catalog lives in memory unless the cluster runs a Hive metastore, so every job registers the
 * config's Delta tables when it starts: the table's log at its path stays the one record of the table, and a name
 * that exists already (a metastore that remembers it) is left as it is.
 */
public final class DeltaTableNames {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(DeltaTableNames.class);
  /** The catalog Delta's extension serves. */
  public static final String CATALOG = "spark_catalog";

  private DeltaTableNames() {}

  /** The name a user gives the Delta table in SQL. */
  public static String of(TableName table) {
    return CATALOG + "." + quote(table.namespace()) + "." + quote(table.table());
  }

  /** Registers the table's name if the table exists at its path; returns whether it does. */
  public static boolean register(SparkSession spark, Tables tables, TableName table) {
    return register(spark, table, tables.deltaPath(table));
  }

  /**
   * Registers the name of the Delta table at {@code path} if there is one; returns whether the name now stands for
   * it. A name that stands for another location already (a table of someone else's, or one moved) is left alone, with
   * a warning: Tributary never drops a table to take its name.
   */
  public static boolean register(SparkSession spark, TableName table, String path) {
    if (!DeltaTable.isDeltaTable(spark, path)) {
      return false;
    }
    String name = of(table);
    if (spark.catalog().tableExists(name)) {
      String registered = location(DeltaTable.forName(spark, name));
      String actual = location(DeltaTable.forPath(spark, path));
      if (!registered.equals(actual)) {
        LOG.warn("{} names the Delta table at {}, not Tributary's table {} at {}; SQL by that name reads the other"
            + " table (Tributary's own jobs address theirs by path)", name, registered, table, actual);
        return false;
      }
      return true;
    }
    spark.sql("CREATE NAMESPACE IF NOT EXISTS " + CATALOG + "." + quote(table.namespace()));
    spark.sql("CREATE TABLE IF NOT EXISTS " + name + " USING delta LOCATION '" + path.replace("'", "\\'") + "'");
    return true;
  }

  private static String location(DeltaTable table) {
    return table.detail().select("location").first().getString(0);
  }

  /** Registers every Delta table of the config that exists; returns how many. */
  public static int registerAll(SparkSession spark, TributaryConfig config) {
    Tables tables = new Tables(config.catalog());
    int registered = 0;
    for (TableName table : deltaTables(config)) {
      if (register(spark, tables, table)) {
        registered++;
      }
    }
    return registered;
  }

  /** The tables of the config kept in Delta: bronze's and silver's, by their layer's format. */
  static Set<TableName> deltaTables(TributaryConfig config) {
    Set<TableName> found = new LinkedHashSet<>();
    if (config.bronze().format() == TableFormat.DELTA) {
      config.bronze().sources().values().forEach(source -> found.add(source.table()));
    }
    if (config.silver().format() == TableFormat.DELTA) {
      config.silver().entityList().stream().map(SilverEntity::table).forEach(found::add);
      if (config.silver().quarantine() != null) {
        found.add(config.silver().quarantine());
      }
    }
    found.remove(null);
    return found;
  }

  private static String quote(String part) {
    return "`" + part.replace("`", "``") + "`";
  }
}
