package io.tributary.maintenance;

import io.tributary.common.config.MaintenanceConfig.Layer;
import io.tributary.common.config.MaintenancePolicy;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TableName;
import java.util.Optional;

/**
 * A table of the lakehouse with what maintenance needs to know about it.
 *
 * @param name the table
 * @param layer its layer
 * @param format its table format
 * @param sqlName how SQL names it ({@code lake.bronze.orders} or {@code delta.`/path`})
 * @param location for Delta tables, the folder
 * @param policy its maintenance policy
 * @param entity for a silver entity's table, the entity
 */
record MaintainedTable(TableName name, Layer layer, TableFormat format, String sqlName, Optional<String> location,
    MaintenancePolicy policy, Optional<SilverEntity> entity) {

  /** A silver current-state table whose deletes leave tombstones. */
  boolean keepsTombstones() {
    return entity.map(e -> e.history() == SilverEntity.History.CURRENT
        && e.deleteMode() == SilverEntity.DeleteMode.TOMBSTONE).orElse(false);
  }

  String describe() {
    return sqlName + " (" + layer.name().toLowerCase(java.util.Locale.ROOT) + ", "
        + format.name().toLowerCase(java.util.Locale.ROOT) + ")";
  }
}
