package io.tributary.maintenance;

import io.tributary.common.cli.UsageException;
import io.tributary.common.config.BronzeSource;
import io.tributary.common.config.MaintenanceConfig.Layer;
import io.tributary.common.config.SilverDatabase;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.DatabaseTables;
import io.tributary.common.lakehouse.DeltaTableNames;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.TableAddress;
import io.tributary.common.lakehouse.Tables;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Which tables maintenance looks after: every table of the config that exists (bronze sources, silver entities and
 * database tables, the quarantine, the gold namespace's tables), each with its layer, format and policy.
 */
final class MaintainedTables {
  private final SparkSession spark;
  private final TributaryConfig config;
  private final Tables tables;

  private MaintainedTables(SparkSession spark, TributaryConfig config) {
    this.spark = spark;
    this.config = config;
    this.tables = new Tables(config.catalog());
  }

  /** The tables of the config that exist, in layer order; {@code only} ({@code namespace.table}) picks one. */
  static List<MaintainedTable> of(SparkSession spark, TributaryConfig config, Optional<String> only) {
    return new MaintainedTables(spark, config).find(only);
  }

  private List<MaintainedTable> find(Optional<String> only) {
    LakehouseSession.registerCatalog(spark, config.catalog());
    List<MaintainedTable> found = new ArrayList<>();
    for (BronzeSource source : config.bronze().sourceList()) {
      add(found, source.table(), Layer.BRONZE, config.bronze().format(), Optional.empty());
    }
    for (SilverEntity entity : config.silver().entityList()) {
      add(found, entity.table(), Layer.SILVER, config.silver().format(), Optional.of(entity));
    }
    for (SilverDatabase database : config.silver().databaseList()) {
      DatabaseTables.of(spark, config, database).forEach((table, topic) ->
          add(found, table, Layer.SILVER, config.silver().format(), database.entityFor(topic)));
    }
    add(found, config.silver().quarantine(), Layer.SILVER, config.silver().format(), Optional.empty());
    String goldNamespace = config.catalog().name() + "." + config.gold().namespace();
    if (config.gold().format() == TableFormat.DELTA) {
      DeltaTableNames.in(spark, tables, config.gold().namespace()).forEach(table ->
          add(found, table, Layer.GOLD, TableFormat.DELTA, Optional.empty()));
    } else if (spark.catalog().databaseExists(goldNamespace)) {
      for (Row row : spark.sql("SHOW TABLES IN " + goldNamespace).collectAsList()) {
        add(found, config.gold().table(row.getString(row.fieldIndex("tableName"))), Layer.GOLD, TableFormat.ICEBERG,
            Optional.empty());
      }
    }
    if (only.isEmpty()) {
      return found;
    }
    List<MaintainedTable> picked = found.stream().filter(table -> table.name().toString().equals(only.get())).toList();
    if (picked.isEmpty()) {
      throw new UsageException("--table " + only.get() + " is not an existing table of this config (tables: "
          + String.join(", ", found.stream().map(table -> table.name().toString()).toList()) + ")");
    }
    return picked;
  }

  private void add(List<MaintainedTable> found, TableName name, Layer layer, TableFormat format,
      Optional<SilverEntity> entity) {
    if (found.stream().anyMatch(table -> table.name().equals(name))) {
      return;
    }
    if (TableAddress.of(tables, name, format).exists(spark)) {
      found.add(new MaintainedTable(name, layer, format, tables.sqlName(name, format),
          format == TableFormat.DELTA ? Optional.of(tables.deltaPath(name)) : Optional.empty(),
          config.maintenance().policyFor(name, layer), entity));
    }
  }
}
