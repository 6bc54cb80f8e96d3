package io.tributary.common.lakehouse;

import io.tributary.common.config.CatalogConfig;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TableName;

/**
 * Where a table of either format lives and how SQL names it. Iceberg tables live in the configured catalog;
 * Delta tables are path-based under the Delta root, so that they need no metastore.
 */
public final class Tables {
  private final CatalogConfig catalog;

  public Tables(CatalogConfig catalog) {
    this.catalog = catalog;
  }

  /** The name to use in SQL and {@code spark.table(...)}. */
  public String sqlName(TableName table, TableFormat format) {
    return switch (format) {
      case ICEBERG -> catalog.name() + "." + table;
      case DELTA -> "delta.`" + deltaPath(table) + "`";
    };
  }

  /** The folder of a Delta table. */
  public String deltaPath(TableName table) {
    return deltaNamespacePath(table.namespace()) + "/" + table.table();
  }

  /** The folder of a namespace's Delta tables. */
  public String deltaNamespacePath(String namespace) {
    if (catalog.deltaWarehouse() == null) {
      throw new IllegalStateException("tributary.catalog.delta-warehouse is needed for Delta tables with a "
          + catalog.type().name().toLowerCase(java.util.Locale.ROOT) + " catalog");
    }
    return catalog.deltaWarehouse() + "/" + namespace;
  }

  public String catalogName() {
    return catalog.name();
  }
}
