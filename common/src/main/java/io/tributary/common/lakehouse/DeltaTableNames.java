package io.tributary.common.lakehouse;

import io.delta.tables.DeltaTable;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import java.util.LinkedHashSet;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.catalyst.catalog.SessionCatalog;
import scala.Option;

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
   * it. A name that stands for another table is left alone, with a warning: Tributary never drops a table to take
   * its name. Only a name Tributary could have made (an external table) whose location holds no table any more (its
   * folder deleted) is pointed at {@code path}.
   */
  public static boolean register(SparkSession spark, TableName table, String path) {
    if (!DeltaTable.isDeltaTable(spark, path)) {
      return false;
    }
    String name = of(table);
    TableIdentifier id = new TableIdentifier(table.table(), Option.apply(table.namespace()));
    SessionCatalog catalog = spark.sessionState().catalog();
    if (catalog.tableExists(id)) {
      CatalogTable registered = metadata(catalog, id);
      String at = qualified(spark, registered.location().toString());
      if (at.equals(qualified(spark, path))) {
        return true;
      }
      if (!registered.tableType().name().equals("EXTERNAL") || DeltaTable.isDeltaTable(spark, at)) {
        LOG.warn("{} names the table at {}, not Tributary's table {} at {}; SQL by that name reads the other"
            + " table (Tributary's own jobs address theirs by path)", name, at, table, path);
        return false;
      }
      LOG.info("{} named {}, which holds no table any more; it names {} now", name, at, path);
      catalog.dropTable(id, true, false);
    }
    spark.sql("CREATE NAMESPACE IF NOT EXISTS " + CATALOG + "." + quote(table.namespace()));
    spark.sql("CREATE TABLE IF NOT EXISTS " + name + " USING delta LOCATION '" + path.replace("'", "\\'") + "'");
    return true;
  }

  private static CatalogTable metadata(SessionCatalog catalog, TableIdentifier id) {
    try {
      return catalog.getTableMetadata(id);
    } catch (org.apache.spark.sql.AnalysisException e) {
      throw new IllegalStateException("cannot read the session catalog's entry of " + id + ": " + e.getMessage(), e);
    }
  }

  private static String qualified(SparkSession spark, String location) {
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(location);
    try {
      return path.getFileSystem(spark.sessionState().newHadoopConf()).makeQualified(path).toString();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot resolve " + location, e);
    }
  }

  /** Registers every Delta table of the config that exists (bronze's, silver's, gold's); returns how many. */
  public static int registerAll(SparkSession spark, TributaryConfig config) {
    Tables tables = new Tables(config.catalog());
    Set<TableName> all = deltaTables(config);
    if (config.gold().format() == TableFormat.DELTA && config.catalog().deltaWarehouse() != null) {
      all.addAll(in(spark, tables, config.gold().namespace()));
    }
    int registered = 0;
    for (TableName table : all) {
      if (register(spark, tables, table)) {
        registered++;
      }
    }
    return registered;
  }

  /** The Delta tables of a namespace: the folders under the Delta warehouse's folder of it that hold one. */
  public static java.util.List<TableName> in(SparkSession spark, Tables tables, String namespace) {
    String root = tables.deltaNamespacePath(namespace);
    try {
      org.apache.hadoop.fs.Path folder = new org.apache.hadoop.fs.Path(root);
      org.apache.hadoop.fs.FileSystem fs = folder.getFileSystem(spark.sessionState().newHadoopConf());
      if (!fs.exists(folder)) {
        return java.util.List.of();
      }
      java.util.List<TableName> found = new java.util.ArrayList<>();
      for (org.apache.hadoop.fs.FileStatus child : fs.listStatus(folder)) {
        if (child.isDirectory() && fs.exists(new org.apache.hadoop.fs.Path(child.getPath(), "_delta_log"))) {
          found.add(new TableName(namespace, child.getPath().getName()));
        }
      }
      found.sort(java.util.Comparator.comparing(TableName::toString));
      return found;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot list the Delta tables under " + root, e);
    }
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
