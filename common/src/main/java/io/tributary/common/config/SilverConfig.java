package io.tributary.common.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The transform layer: entities merged from bronze into current-state silver tables.
 *
 * @param format the table format of every silver table (entities and quarantine)
 * @param quarantine the table that keeps every record no decoder could accept, with its reason
 * @param entities the entities by name, each inheriting {@code tributary.silver.defaults}
 * @param databases whole source databases by name, each table of which is an entity made when its topic appears
 */
public record SilverConfig(TableFormat format, TableName quarantine, Map<String, SilverEntity> entities,
    Map<String, SilverDatabase> databases) {

  static final Set<String> KEYS = Set.of("format", "quarantine-table", "defaults", "entities", "databases");

  /**
   * @param bronzeTables the bronze tables by source name: a silver or quarantine table must not be one of them
   */
  static SilverConfig read(ConfigReader reader, Config silver, Map<String, TableName> bronzeTables) {
    reader.rejectUnknownKeys(KEYS);
    Config defaults = silver.hasPath("defaults") ? silver.getConfig("defaults") : ConfigFactory.empty();
    TableFormat format = reader.oneOf("format", TableFormat.class);
    TableName quarantine = TableName.parse(reader, "quarantine-table");
    // Which setting already writes a table: the MERGE of two entities into one table, or of an entity into bronze
    // or quarantine, would pass every other check and corrupt the table on the first batch.
    Map<TableName, String> owners = new LinkedHashMap<>();
    bronzeTables.forEach((source, table) -> owners.putIfAbsent(table, "the bronze table of source '" + source + "'"));
    if (quarantine != null) {
      String bronze = owners.putIfAbsent(quarantine, "the quarantine table");
      if (bronze != null) {
        reader.problem("quarantine-table", "table " + quarantine + " is " + bronze);
      }
    }
    Map<String, SilverEntity> entities = new LinkedHashMap<>();
    if (silver.hasPath("entities")) {
      for (String name : silver.getConfig("entities").root().keySet().stream().sorted().toList()) {
        ConfigReader own = reader.child(ConfigUtil.joinPath("entities", name));
        ConfigReader entity = own.withFallback(defaults, reader.path("defaults"));
        SilverEntity read = SilverEntity.read(name, entity);
        if (read.table() != null) {
          String owner = owners.putIfAbsent(read.table(), "the table of entity '" + name + "'");
          if (owner != null) {
            own.problem("table", "table " + read.table() + " is already " + owner);
          }
        }
        entities.put(name, read);
      }
    }
    Map<String, SilverDatabase> databases = new LinkedHashMap<>();
    if (silver.hasPath("databases")) {
      ConfigReader block = reader.child("databases");
      for (String name : block.keys()) {
        SilverDatabase database = SilverDatabase.read(name, block.child(ConfigUtil.joinPath(name)), defaults,
            reader.path("defaults"), owners);
        if (database != null) {
          databases.put(name, database);
        }
      }
    }
    return new SilverConfig(format, quarantine, Map.copyOf(entities), Map.copyOf(databases));
  }

  /** The database whose template or table blocks may give {@code table} its name. */
  public Optional<SilverDatabase> databaseOf(TableName table) {
    return databaseList().stream().filter(database -> database.mayHold(table)).findFirst();
  }

  /** The databases in name order. */
  public List<SilverDatabase> databaseList() {
    return databases.values().stream().sorted(java.util.Comparator.comparing(SilverDatabase::name)).toList();
  }

  /** The entities in name order. */
  public List<SilverEntity> entityList() {
    return entities.values().stream().sorted(java.util.Comparator.comparing(SilverEntity::name)).toList();
  }
}
