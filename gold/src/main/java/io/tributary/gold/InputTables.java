package io.tributary.gold;

import io.tributary.common.config.GoldConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import io.tributary.common.lakehouse.TableAddress;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;

/**
 * The tables a run reads, each pinned to one snapshot: a silver table or a gold model not built in this run at the
 * snapshot that was current when the run started, a model built in this run at the snapshot it committed. Every
 * model of a run therefore sees one consistent state, however the streams commit meanwhile, and the pins are the
 * lineage recorded with each commit.
 */
final class InputTables {
  private static final long EMPTY = GoldTables.EMPTY;

  private final GoldTables tables;
  private final GoldConfig gold;
  /** namespace.table → version (snapshot id, Delta version); absent for a model of this run not committed yet. */
  private final Map<String, Long> pins = new LinkedHashMap<>();
  /** namespace.table → where it is, for the tables pinned. */
  private final Map<String, TableAddress> addresses = new LinkedHashMap<>();

  private InputTables(GoldTables tables, GoldConfig gold) {
    this.tables = tables;
    this.gold = gold;
  }

  /**
   * Pins every table the selected models read. A source that does not exist, or a model outside the selection whose
   * table has not been built yet, is a problem named with the model that reads it.
   */
  static InputTables pin(GoldTables tables, String catalog, GoldConfig gold, List<GoldModel> selected,
      List<String> problems) {
    InputTables inputs = new InputTables(tables, gold);
    Set<String> building = Set.copyOf(selected.stream().map(GoldModel::name).toList());
    for (GoldModel model : selected) {
      for (String source : model.sources()) {
        inputs.pinCurrent(source, () -> "model " + model.name() + " reads " + source + ", which is not a table"
            + " in catalog " + catalog, problems);
      }
      for (String reference : model.models()) {
        if (!building.contains(reference)) {
          inputs.pinCurrent(inputs.tableOf(reference), () -> "model " + model.name() + " reads model "
              + reference + ", whose table " + tables.model(reference) + " has not been built yet"
              + " (run it first, or select it too)", problems);
        }
      }
    }
    return inputs;
  }

  private void pinCurrent(String table, java.util.function.Supplier<String> missing, List<String> problems) {
    if (pins.containsKey(table)) {
      return;
    }
    TableAddress address = tables.address(table);
    java.util.OptionalLong current = tables.currentVersion(address);
    if (current.isEmpty()) {
      String problem = missing.get();
      if (!problems.contains(problem)) {
        problems.add(problem);
      }
      return;
    }
    addresses.put(table, address);
    pins.put(table, current.getAsLong());
  }

  /** The table, or empty when it does not exist; any other failure (the catalog unreachable) is thrown. */
  static Optional<Table> load(SparkSession spark, String table) {
    try {
      return Optional.of(Spark3Util.loadIcebergTable(spark, table));
    } catch (org.apache.spark.sql.catalyst.analysis.NoSuchTableException
        | org.apache.iceberg.exceptions.NoSuchTableException e) {
      return Optional.empty();
    } catch (org.apache.spark.sql.catalyst.parser.ParseException e) {
      throw new IllegalArgumentException("not a table name: " + table, e);
    }
  }

  /** The gold table of a model, as {@code namespace.table}. */
  String tableOf(String model) {
    return gold.table(model).toString();
  }

  /** Records the version a model of this run committed; the models after it read that version. */
  void committed(String model, long version) {
    addresses.put(tableOf(model), tables.model(model));
    pins.put(tableOf(model), version);
  }

  /**
   * The SQL name of a reference ({@code ref:model} or {@code namespace.table}) with its pin, e.g.
   * {@code lake.silver.orders VERSION AS OF 4711}. A model of this run that has not committed yet is named without
   * a pin (only a dry run renders it so).
   */
  String sqlName(String reference) {
    String table = reference.startsWith("ref:") ? tableOf(reference.substring(4)) : reference;
    Long pin = pins.get(table);
    TableAddress address = addresses.computeIfAbsent(table, tables::address);
    return address.sqlName() + (pin == null || pin == EMPTY ? "" : " VERSION AS OF " + pin);
  }

  /** Whether every model this one reads has a snapshot to read (not true in a dry run before its inputs run). */
  boolean ready(GoldModel model) {
    return model.models().stream().allMatch(reference -> pins.containsKey(tableOf(reference)));
  }

  /**
   * The pins of the tables a model reads, e.g. {@code gold.customer_value@12,silver.orders@34}; in a dry run a model
   * of the same run has no snapshot yet.
   */
  String lineage(GoldModel model) {
    List<String> tables = new ArrayList<>(model.sources());
    model.models().forEach(reference -> tables.add(tableOf(reference)));
    return String.join(",", tables.stream().sorted().map(table -> {
      Long pin = pins.get(table);
      return table + "@" + (pin == null ? "(built before it in this run)" : pin == EMPTY ? "empty" : pin);
    }).toList());
  }
}
