package io.tributary.common.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigResolveOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The whole lakehouse, read from one HOCON file.
 *
 * <p>Layers, first wins: environment overrides ({@code CONFIG_FORCE_tributary_kafka_bootstrap__servers=...}, see
 * Typesafe Config), the file given with {@code --config}, then {@code reference.conf} (Tributary's defaults). The
 * file itself may read environment variables with {@code ${?NAME}}, as {@code conf/application.conf} does.
 *
 * @param appName Spark application name prefix
 * @param catalog the Iceberg catalog (and the Delta root)
 * @param kafka how to reach Kafka
 * @param checkpointLocation root of the streaming checkpoints, one folder per stream
 * @param spark extra Spark settings applied to the session ({@code spark.*} keys)
 * @param bronze the load layer
 * @param silver the transform layer: entities merged into current-state tables
 * @param gold the SQL models built from silver (and from each other) per data interval
 * @param maintenance how each table is compacted, expired and cleaned
 * @param schemaRegistry where the Avro decoders fetch writer schemas
 */
public record TributaryConfig(
    String appName,
    CatalogConfig catalog,
    KafkaConfig kafka,
    String checkpointLocation,
    Map<String, String> spark,
    BronzeConfig bronze,
    SilverConfig silver,
    GoldConfig gold,
    MaintenanceConfig maintenance,
    SchemaRegistryConfig schemaRegistry) {

  /** With every secret hidden (Kafka's JAAS line, catalog credentials, keys among the Spark settings). */
  @Override
  public String toString() {
    return "TributaryConfig[appName=" + appName + ", catalog=" + catalog + ", kafka=" + kafka
        + ", checkpointLocation=" + checkpointLocation + ", spark=" + Secrets.hidden(spark) + ", bronze=" + bronze
        + ", silver=" + silver + ", gold=" + gold + ", maintenance=" + maintenance + ", schemaRegistry="
        + schemaRegistry + "]";
  }

  static final String ROOT = "tributary";
  static final Set<String> KEYS =
      Set.of("app-name", "format", "catalog", "kafka", "checkpoint-location", "spark", "bronze", "silver", "gold",
      "maintenance", "schema-registry");

  /** Loads and validates a config file; throws {@link InvalidConfigException} naming every bad key. */
  public static TributaryConfig load(Path file) {
    return load(file, ConfigFactory.empty());
  }

  /** Loads a config file with some keys forced over everything (the demo forces the local broker's address). */
  public static TributaryConfig load(Path file, Config forced) {
    return load(file, forced, Path.of(""));
  }

  /**
   * Loads a config file whose relative local paths (warehouse, checkpoints, gold models) are relative to
   * {@code baseDir} rather than the working directory (a notebook's kernel runs in the notebook's folder).
   */
  public static TributaryConfig load(Path file, Config forced, Path baseDir) {
    if (Files.isDirectory(file)) {
      throw new InvalidConfigException(List.of("--config: " + file.toAbsolutePath() + " is a folder, not a file"));
    }
    if (!Files.isRegularFile(file)) {
      throw new InvalidConfigException(List.of("--config: file " + file.toAbsolutePath() + " does not exist"));
    }
    Config parsed;
    try {
      parsed = ConfigFactory.parseFile(file.toFile(), ConfigParseOptions.defaults().setAllowMissing(false));
    } catch (ConfigException.Parse e) {
      // Typesafe's message starts with the origin ("FILE: LINE: "); said once, as the key-like prefix.
      String origin = e.origin() == null ? "" : e.origin().description() + ": ";
      String problem = e.getMessage().startsWith(origin) ? e.getMessage().substring(origin.length()) : e.getMessage();
      String line = e.origin() == null || e.origin().lineNumber() < 0 ? "" : ", line " + e.origin().lineNumber();
      throw new InvalidConfigException(List.of("--config: " + file.toAbsolutePath() + line + ": not valid HOCON: "
          + problem));
    }
    return from(forced.withFallback(parsed), baseDir);
  }

  /** Validates an already parsed config (layered over environment overrides and reference.conf). */
  public static TributaryConfig from(Config userConfig) {
    return from(userConfig, Path.of(""));
  }

  private static TributaryConfig from(Config userConfig, Path baseDir) {
    Config layered;
    try {
      layered = ConfigFactory.systemEnvironmentOverrides()
          .withFallback(userConfig)
          // reference.conf alone: defaultReference() would also read system properties, surprising a user.
          .withFallback(ConfigFactory.parseResources(TributaryConfig.class.getClassLoader(), "reference.conf"))
          .resolve(ConfigResolveOptions.defaults());
    } catch (ConfigException.UnresolvedSubstitution e) {
      throw new InvalidConfigException(List.of(e.getMessage()));
    }
    List<String> problems = new ArrayList<>();
    TributaryConfig config;
    try {
      ConfigReader root = new ConfigReader(layered, "", problems, baseDir).child(ROOT);
      root.rejectUnknownKeys(KEYS);
      // Read in file order, so that problems are listed the way the file reads.
      String appName = root.string("app-name");
      root.oneOf("format", TableFormat.class); // each layer reads its own, which defaults to this one
      CatalogConfig catalog = CatalogConfig.read(root.child("catalog"));
      KafkaConfig kafka = KafkaConfig.read(root.child("kafka"));
      String checkpoints = root.location("checkpoint-location");
      Map<String, String> spark = Map.copyOf(sparkSettings(root));
      BronzeConfig bronze = BronzeConfig.read(root.child("bronze"), layered.getConfig(ROOT + ".bronze"));
      Map<String, TableName> bronzeTables = new java.util.TreeMap<>();
      bronze.sources().forEach((name, source) -> {
        if (source.table() != null) {
          bronzeTables.put(name, source.table());
        }
      });
      SilverConfig silver = SilverConfig.read(root.child("silver"), layered.getConfig(ROOT + ".silver"), bronzeTables);
      GoldConfig gold = GoldConfig.read(root.child("gold"));
      config = new TributaryConfig(
          appName,
          catalog,
          kafka,
          checkpoints,
          spark,
          bronze,
          silver,
          gold,
          MaintenanceConfig.read(root.child("maintenance"), layered.getConfig(ROOT + ".maintenance"),
              table -> layerOf(table, bronze, silver, gold)),
          SchemaRegistryConfig.read(root.child("schema-registry")));
      if (config.schemaRegistry().url().isEmpty()) {
        for (SilverEntity entity : silver.entityList()) {
          if (entity.decoder().isAvro()) {
            root.problem("schema-registry.url", "is missing: entity '" + entity.name() + "' (decoder "
                + entity.decoder().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-')
                + ") fetches its writer schemas from the registry");
          }
        }
        for (SilverDatabase database : silver.databaseList()) {
          if (database.decoder().isAvro()) {
            root.problem("schema-registry.url", "is missing: database '" + database.name() + "' (decoder"
                + " debezium-avro) fetches its writer schemas from the registry");
          }
        }
      }
      if ((config.bronze().format() == TableFormat.DELTA || config.silver().format() == TableFormat.DELTA
          || config.gold().format() == TableFormat.DELTA)
          && config.catalog().deltaWarehouse() == null) {
        root.problem("catalog.delta-warehouse", "is missing: Delta tables need it when the catalog has no warehouse");
      }
    } catch (ConfigException e) {
      // A value of the wrong kind where an object is expected (sources = [...]): Typesafe's message names the key.
      problems.add(e.getMessage());
      config = null;
    }
    if (!problems.isEmpty()) {
      throw new InvalidConfigException(problems);
    }
    return config;
  }

  /**
   * The format of a table of the lakehouse by the layer that keeps it (a bronze source's, a silver entity's or
   * database's, the quarantine, a gold model's); empty for a table no layer of the config keeps.
   */
  public Optional<TableFormat> formatOf(TableName table) {
    return layerOf(table, bronze, silver, gold).map(layer -> switch (layer) {
      case BRONZE -> bronze.format();
      case SILVER -> silver.format();
      case GOLD -> gold.format();
    });
  }

  private static Optional<MaintenanceConfig.Layer> layerOf(TableName table, BronzeConfig bronze, SilverConfig silver,
      GoldConfig gold) {
    if (bronze.sources().values().stream().anyMatch(source -> table.equals(source.table()))) {
      return Optional.of(MaintenanceConfig.Layer.BRONZE);
    }
    if (table.equals(silver.quarantine())
        || silver.entities().values().stream().anyMatch(entity -> table.equals(entity.table()))
        || silver.databases().values().stream().anyMatch(database -> database.mayHold(table))) {
      return Optional.of(MaintenanceConfig.Layer.SILVER);
    }
    if (table.namespace().equals(gold.namespace())) {
      return Optional.of(MaintenanceConfig.Layer.GOLD);
    }
    return Optional.empty();
  }

  private static Map<String, String> sparkSettings(ConfigReader root) {
    Map<String, String> settings = root.stringMap("spark");
    for (String key : settings.keySet()) {
      if (!key.startsWith("spark.")) {
        root.problem("spark.\"" + key + "\"", "Spark settings must start with 'spark.'");
      }
    }
    return settings;
  }

  /**
   * The checkpoint folder of one stream, e.g. {@code <root>/bronze/iceberg/bronze.orders}. The format is part of
   * it: a table switched to another format is a new, empty table, and must not resume from the old one's offsets.
   */
  public String checkpointFor(String layer, TableFormat format, TableName table) {
    return checkpointLocation + "/" + layer + "/" + ConfigNames.of(format) + "/" + table;
  }
}
