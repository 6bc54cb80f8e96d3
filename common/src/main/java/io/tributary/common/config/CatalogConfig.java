package io.tributary.common.config;

import java.util.Map;
import java.util.Set;

/**
 * The Iceberg catalog that holds the lakehouse tables, and where path-based Delta tables live.
 *
 * @param name the Spark catalog name (tables are {@code name.namespace.table})
 * @param type the Iceberg catalog implementation
 * @param warehouse the warehouse location; required for the hadoop catalog
 * @param deltaWarehouse root of Delta tables ({@code <root>/<namespace>/<table>}); default {@code <warehouse>/_delta}
 * @param properties extra catalog properties, passed as {@code spark.sql.catalog.<name>.<key>}
 */
public record CatalogConfig(
    String name, CatalogType type, String warehouse, String deltaWarehouse, Map<String, String> properties) {

  static final Set<String> KEYS = Set.of("name", "type", "warehouse", "delta-warehouse", "properties");
  /** Schemes of object stores, which have no atomic rename. */
  private static final java.util.regex.Pattern OBJECT_STORE = java.util.regex.Pattern.compile(
      "(s3|s3a|s3n|gs|abfs|abfss|wasb|wasbs|oss|cos|cosn|obs)://", java.util.regex.Pattern.CASE_INSENSITIVE);

  static CatalogConfig read(ConfigReader reader) {
    reader.rejectUnknownKeys(KEYS);
    String name = reader.string("name");
    if (name != null && !name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
      reader.problem("name", "must be a simple identifier, got '" + name + "'");
    }
    if ("spark_catalog".equals(name)) {
      reader.problem("name", "must not be spark_catalog: that name is reserved for Delta tables");
    }
    CatalogType type = reader.oneOf("type", CatalogType.class);
    String warehouse = null;
    if (type == CatalogType.HADOOP || reader.has("warehouse")) {
      warehouse = reader.location("warehouse");
    }
    if (type == CatalogType.HADOOP && warehouse != null && OBJECT_STORE.matcher(warehouse).lookingAt()) {
      reader.problem("warehouse", "is on an object store (" + warehouse.substring(0, warehouse.indexOf(':'))
          + "://), where the hadoop catalog loses commits: it commits by renaming a metadata file, and object stores"
          + " have no atomic rename, so two writers (streams, maintenance) can both succeed and one commit vanishes."
          + " Use a catalog that commits atomically (type = rest, jdbc, glue or hive); the tables can stay on the"
          + " object store");
    }
    String deltaWarehouse = reader.optionalLocation("delta-warehouse")
        .orElse(warehouse == null ? null : warehouse + "/_delta");
    return new CatalogConfig(name, type, warehouse, deltaWarehouse, Map.copyOf(reader.stringMap("properties")));
  }

  /** With every secret (a credential, a key) hidden: a config is printed in errors and logs. */
  @Override
  public String toString() {
    return "CatalogConfig[name=" + name + ", type=" + type + ", warehouse=" + warehouse + ", deltaWarehouse="
        + deltaWarehouse + ", properties=" + Secrets.hidden(properties) + "]";
  }
}
