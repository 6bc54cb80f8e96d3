package io.tributary.common.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Maintenance policies: {@code defaults}, refined per layer ({@code bronze}, {@code silver}, {@code gold}), refined
 * per table under {@code tables} (keyed by {@code "namespace.table"}).
 *
 * @param layers the policy of each layer
 * @param tables the policies of tables with their own settings
 */
public record MaintenanceConfig(Map<Layer, MaintenancePolicy> layers, Map<TableName, MaintenancePolicy> tables) {

  static final Set<String> KEYS = Set.of("defaults", "bronze", "silver", "gold", "tables");

  public enum Layer { BRONZE, SILVER, GOLD }

  /**
   * @param layerOf the layer of a table named under {@code tables}, from the rest of the config; empty when no layer
   *     holds it
   */
  static MaintenanceConfig read(ConfigReader reader, Config maintenance,
      Function<TableName, Optional<Layer>> layerOf) {
    reader.rejectUnknownKeys(KEYS);
    Config defaults = maintenance.hasPath("defaults") ? maintenance.getConfig("defaults") : ConfigFactory.empty();
    // A table's policy: its own settings, then its layer's, then the defaults; a problem with an inherited value is
    // reported where it was written.
    Map<Layer, Config> layerOwn = new LinkedHashMap<>();
    Map<Layer, MaintenancePolicy> layers = new LinkedHashMap<>();
    for (Layer layer : Layer.values()) {
      String key = ConfigNames.of(layer);
      layerOwn.put(layer, maintenance.hasPath(key) ? maintenance.getConfig(key) : ConfigFactory.empty());
      layers.put(layer, MaintenancePolicy.read(reader.child(key).withFallback(defaults, reader.path("defaults"))));
    }
    Map<TableName, MaintenancePolicy> tables = new LinkedHashMap<>();
    if (maintenance.hasPath("tables")) {
      for (String name : maintenance.getConfig("tables").root().keySet().stream().sorted().toList()) {
        String key = ConfigUtil.joinPath("tables", name);
        ConfigReader table = reader.child(key);
        TableName tableName = TableName.parseText(name);
        if (tableName == null) {
          table.problem("", "must be keyed by \"namespace.table\" (quoted), got '" + name + "'");
          continue;
        }
        Optional<Layer> layer = layerOf.apply(tableName);
        if (layer.isEmpty()) {
          table.problem("", "is not a bronze, silver or gold table of this config");
          continue;
        }
        tables.put(tableName, MaintenancePolicy.read(table
            .withFallback(layerOwn.get(layer.get()), reader.path(ConfigNames.of(layer.get())))
            .withFallback(defaults, reader.path("defaults"))));
      }
    }
    return new MaintenanceConfig(Map.copyOf(layers), Map.copyOf(tables));
  }

  /** The policy of a table of a layer. */
  public MaintenancePolicy policyFor(TableName table, Layer layer) {
    return tables.getOrDefault(table, layers.get(layer));
  }
}
