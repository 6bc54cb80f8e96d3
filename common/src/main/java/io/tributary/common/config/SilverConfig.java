package io.tributary.common.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The transform layer: entities merged from bronze into current-state silver tables (Iceberg).
 *
 * @param quarantine the table that keeps every record no decoder could accept, with its reason
 * @param entities the entities by name, each inheriting {@code tributary.silver.defaults}
 */
public record SilverConfig(TableName quarantine, Map<String, SilverEntity> entities) {

  static final Set<String> KEYS = Set.of("quarantine-table", "defaults", "entities");

  static SilverConfig read(ConfigReader reader, Config silver) {
    reader.rejectUnknownKeys(KEYS);
    Config defaults = silver.hasPath("defaults") ? silver.getConfig("defaults") : ConfigFactory.empty();
    Map<String, SilverEntity> entities = new LinkedHashMap<>();
    if (silver.hasPath("entities")) {
      for (String name : silver.getConfig("entities").root().keySet().stream().sorted().toList()) {
        ConfigReader entity = reader.child(ConfigUtil.joinPath("entities", name))
            .withFallback(defaults, reader.path("defaults"));
        entities.put(name, SilverEntity.read(name, entity));
      }
    }
    return new SilverConfig(TableName.parse(reader, "quarantine-table"), Map.copyOf(entities));
  }

  /** The entities in name order. */
  public List<SilverEntity> entityList() {
    return entities.values().stream().sorted(java.util.Comparator.comparing(SilverEntity::name)).toList();
  }
}
