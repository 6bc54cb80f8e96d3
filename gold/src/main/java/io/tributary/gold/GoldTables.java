package io.tributary.gold;

import io.delta.tables.DeltaTable;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.TableAddress;
import io.tributary.common.lakehouse.Tables;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;
import scala.Option;

/**
 * The tables gold reads and writes, each in its format: a table a layer of the config keeps in that layer's format
 * (a Delta silver table, an Iceberg bronze table, the gold models' tables in gold's), any other table in the Iceberg
 * catalog if it is there, else at its Delta path.
 */
final class GoldTables {
  /** The version of a table with no snapshot yet (created, never written): read as it is, recorded as empty. */
  static final long EMPTY = -1;

  private final SparkSession spark;
  private final TributaryConfig config;
  private final Tables tables;

  GoldTables(SparkSession spark, TributaryConfig config) {
    this.spark = spark;
    this.config = config;
    this.tables = new Tables(config.catalog());
  }

  /** Where {@code table} ({@code namespace.table}) is. */
  TableAddress address(String table) {
    TableName name = TableName.parseText(table);
    if (name == null) {
      throw new IllegalArgumentException("not a table name: " + table);
    }
    TableFormat format = config.formatOf(name).orElseGet(() -> spark.catalog().tableExists(tables.sqlName(name,
        TableFormat.ICEBERG)) || config.catalog().deltaWarehouse() == null ? TableFormat.ICEBERG
        : DeltaTable.isDeltaTable(spark, tables.deltaPath(name)) ? TableFormat.DELTA : TableFormat.ICEBERG);
    return TableAddress.of(tables, name, format);
  }

  /** The gold table of a model. */
  TableAddress model(String model) {
    return TableAddress.of(tables, config.gold().table(model), config.gold().format());
  }

  /**
   * The table's current version (an Iceberg snapshot id, a Delta version), {@link #EMPTY} for an Iceberg table with
   * no snapshot; empty when the table does not exist. Any other failure (the catalog unreachable) is thrown.
   */
  OptionalLong currentVersion(TableAddress table) {
    if (table.format() == TableFormat.DELTA) {
      if (!DeltaTable.isDeltaTable(spark, table.deltaPath())) {
        return OptionalLong.empty();
      }
      return OptionalLong.of(DeltaLog.forTable(spark, table.deltaPath()).update(false, Option.empty(), Option.empty())
          .version());
    }
    return iceberg(table).map(loaded -> {
      Snapshot current = loaded.currentSnapshot();
      return OptionalLong.of(current == null ? EMPTY : current.snapshotId());
    }).orElse(OptionalLong.empty());
  }

  /** The Iceberg table, or empty when it does not exist. */
  Optional<Table> iceberg(TableAddress table) {
    return InputTables.load(spark, table.sqlName());
  }

  /** The namespace of the gold tables, made if missing (Iceberg; Delta tables need none). */
  void ensureGoldNamespace() {
    if (config.gold().format() == TableFormat.ICEBERG) {
      spark.sql("CREATE NAMESPACE IF NOT EXISTS " + config.catalog().name() + "." + config.gold().namespace());
    }
  }
}
