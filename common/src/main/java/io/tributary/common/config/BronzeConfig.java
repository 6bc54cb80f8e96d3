package io.tributary.common.config;

import com.typesafe.config.Config;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The load layer: which topics land in which bronze tables, in which table format.
 *
 * @param format the table format of every bronze table
 * @param sources the sources by name, each inheriting {@code tributary.bronze.defaults}
 */
public record BronzeConfig(TableFormat format, Map<String, BronzeSource> sources) {

  static final Set<String> KEYS = Set.of("format", "defaults", "sources");

  static BronzeConfig read(ConfigReader reader, Config bronze) {
    reader.rejectUnknownKeys(KEYS);
    TableFormat format = reader.oneOf("format", TableFormat.class);
    if (!isObject(reader, bronze, "defaults") | !isObject(reader, bronze, "sources")) {
      return new BronzeConfig(format, Map.of());
    }
    Config defaults = bronze.hasPath("defaults") ? bronze.getConfig("defaults") : com.typesafe.config.ConfigFactory.empty();
    Map<String, BronzeSource> sources = new LinkedHashMap<>();
    Map<TableName, String> sourceByTable = new HashMap<>();
    if (bronze.hasPath("sources")) {
      for (String name : bronze.getConfig("sources").root().keySet().stream().sorted().toList()) {
        String key = com.typesafe.config.ConfigUtil.joinPath("sources", name);
        ConfigReader sourceReader = reader.child(key);
        ConfigReader withDefaults = sourceReader.withFallback(defaults, reader.path("defaults"));
        BronzeSource source = BronzeSource.read(name, withDefaults);
        if (source.table() != null) {
          String other = sourceByTable.putIfAbsent(source.table(), name);
          if (other != null) {
            sourceReader.problem("table", "table " + source.table() + " is already the target of source '" + other + "'");
          }
        }
        sources.put(name, source);
      }
    }
    return new BronzeConfig(format, Map.copyOf(sources));
  }

  private static boolean isObject(ConfigReader reader, Config bronze, String key) {
    if (bronze.hasPath(key) && bronze.getValue(key).valueType() != com.typesafe.config.ConfigValueType.OBJECT) {
      reader.problem(key, "must be an object (" + (key.equals("sources") ? "sources by name" : "settings by key")
          + "), got " + bronze.getValue(key).valueType().name().toLowerCase(java.util.Locale.ROOT));
      return false;
    }
    return true;
  }

  /** The sources in name order. */
  public List<BronzeSource> sourceList() {
    return sources.values().stream().sorted(java.util.Comparator.comparing(BronzeSource::name)).toList();
  }
}
