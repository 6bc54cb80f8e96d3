package io.tributary.common.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.tributary.common.config.TableTemplate.SourceTable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A whole source database kept in silver from one block: the Debezium change events of all its tables, landed in one
 * bronze table (by a bronze source with a topic {@code pattern}), become one silver table per source table, named by
 * a {@link TableTemplate}. A table's settings are the database's, then its own block under {@code tables}
 * ({@code "schema.table" { ... }}). One streaming query serves the whole database; tables whose topics appear later
 * are found without a restart, which is why the entity of a topic is made here on demand ({@link #entityFor}).
 */
public final class SilverDatabase {
  /** What a database block may set beyond an entity's settings. */
  static final Set<String> KEYS = Stream.concat(SilverEntity.KEYS.stream(), Stream.of("topics", "exclude", "tables",
      "merge-parallelism")).collect(Collectors.toUnmodifiableSet());

  /** Tables of one batch merged side by side unless the block says otherwise (measured: docs/BENCHMARKS.md). */
  static final int DEFAULT_MERGE_PARALLELISM = 4;

  private static final Set<Object> DEBEZIUM = Set.of("debezium-json", "debezium-avro");

  /** Settings of the one stream, not of a table. */
  private static final List<String> STREAM_KEYS = List.of("source", "trigger", "max-rows-per-trigger");

  private final String name;
  private final String path;
  private final TableName source;
  private final Optional<Pattern> topics;
  private final TableTemplate template;
  private final List<Pattern> exclude;
  /** The database block without its own keys: what every table inherits. */
  private final Config settings;
  private final Config defaults;
  private final String defaultsPath;
  private final Map<String, Config> tables;
  /** The first table's settings, read when the config was: the database's decoder and stream settings. */
  private final SilverEntity sample;
  private final int mergeParallelism;

  private SilverDatabase(String name, String path, TableName source, Optional<Pattern> topics,
      TableTemplate template, List<Pattern> exclude, Config settings, Config defaults, String defaultsPath,
      Map<String, Config> tables, SilverEntity sample, int mergeParallelism) {
    this.mergeParallelism = mergeParallelism;
    this.name = name;
    this.path = path;
    this.source = source;
    this.topics = topics;
    this.template = template;
    this.exclude = exclude;
    this.settings = settings;
    this.defaults = defaults;
    this.defaultsPath = defaultsPath;
    this.tables = tables;
    this.sample = sample;
  }

  /**
   * The database at {@code reader}'s path, or null after reporting its problems. Every table block is read as the
   * entity it makes, so a mistake in one is reported now, not when its topic first appears.
   *
   * @param defaults {@code tributary.silver.defaults}, which the database inherits
   * @param owners the tables other settings write, to which a table named in the block adds itself
   */
  static SilverDatabase read(String name, ConfigReader reader, Config defaults, String defaultsPath,
      Map<TableName, String> owners) {
    reader.rejectUnknownKeys(KEYS);
    int before = reader.problemCount();
    TableName source = TableName.parse(reader, "source");
    Optional<TableTemplate> template = TableTemplate.read(reader, "table");
    Optional<Pattern> topics = reader.optionalString("topics").map(regex -> pattern(reader, "topics", regex));
    List<Pattern> exclude = new ArrayList<>();
    List<String> excluded = reader.optionalStringList("exclude");
    for (String regex : excluded == null ? List.<String>of() : excluded) {
      exclude.add(pattern(reader, "exclude", regex));
    }
    int mergeParallelism = reader.has("merge-parallelism") ? (int) Math.min(64, reader.positiveLong(
        "merge-parallelism")) : DEFAULT_MERGE_PARALLELISM;
    if (reader.has("schema")) {
      reader.problem("schema", "is per table: set it under tables { \"schema.table\" { schema = ... } }");
    }
    Map<String, Config> tables = new LinkedHashMap<>();
    if (reader.has("tables")) {
      ConfigReader block = reader.child("tables");
      for (String table : block.keys()) {
        ConfigReader own = block.child(ConfigUtil.joinPath(table));
        for (String key : STREAM_KEYS) {
          if (own.has(key)) {
            own.problem(key, "is set for the whole database (" + reader.path(key) + "): its tables share one stream");
          }
        }
        tables.put(table, own.config());
      }
    }
    if (template.isEmpty() || source == null) {
      return null;
    }
    Config settings = reader.config();
    for (String key : reader.config().root().keySet()) {
      // The database's own keys, and unknown ones (reported above), are not a table's settings.
      if (!SilverEntity.KEYS.contains(key) || key.equals("table")) {
        settings = settings.withoutPath(ConfigUtil.joinPath(key));
      }
    }
    Config withDefaults = settings.withFallback(defaults);
    if (withDefaults.hasPath("decoder") && !DEBEZIUM.contains(withDefaults.getValue("decoder").unwrapped())) {
      reader.valueProblem("decoder", "must be debezium-json or debezium-avro: a database's tables are named and"
          + " typed by their Debezium change events");
      return null;
    }
    SilverDatabase database = new SilverDatabase(name, reader.prefix(), source, topics, template.get(),
        List.copyOf(exclude), settings, defaults, defaultsPath, Map.copyOf(tables), null, 1);
    SilverEntity sample = database.read(new SourceTable("schema", "table"),
        template.get().tableFor(new SourceTable("schema", "table")), reader.problems());
    if (sample == null) {
      return null;
    }
    SilverDatabase checked = new SilverDatabase(name, reader.prefix(), source, topics, template.get(),
        List.copyOf(exclude), settings, defaults, defaultsPath, Map.copyOf(tables), sample, mergeParallelism);
    for (String table : tables.keySet()) {
      SourceTable sourceTable = SourceTable.of(table);
      SilverEntity entity = checked.read(sourceTable, template.get().tableFor(sourceTable), reader.problems());
      // With {topic} in the template, a table's name is known only once its topic is (checked then).
      if (entity != null && (tables.get(table).hasPath("table") || !template.get().usesTopic())) {
        String owner = owners.putIfAbsent(entity.table(), "the table of " + entity.configPath());
        if (owner != null) {
          reader.problem(ConfigUtil.joinPath("tables", table), "table " + entity.table() + " is already " + owner);
        }
      }
    }
    return reader.problemCount() > before ? null : checked;
  }

  private static Pattern pattern(ConfigReader reader, String key, String regex) {
    try {
      return Pattern.compile(regex);
    } catch (PatternSyntaxException e) {
      reader.valueProblem(key, "is not a Java regular expression: " + e.getDescription() + " in '" + regex + "'");
      return Pattern.compile("(?!)");
    }
  }

  /**
   * The entity that keeps the source table whose changes come on {@code topic}; empty when the topic is not this
   * database's ({@code topics}) or its table is excluded.
   *
   * @throws InvalidConfigException when the table's settings are wrong (only possible for what the config could not
   *     check before the topic existed)
   */
  public Optional<SilverEntity> entityFor(String topic) {
    if (topics.isPresent() && !topics.get().matcher(topic).matches()) {
      return Optional.empty();
    }
    SourceTable table = SourceTable.of(topic);
    if (exclude.stream().anyMatch(pattern -> pattern.matcher(table.toString()).matches())) {
      return Optional.empty();
    }
    List<String> problems = new ArrayList<>();
    SilverEntity entity = read(table, template.tableFor(topic), problems);
    if (!problems.isEmpty()) {
      throw new InvalidConfigException(problems);
    }
    return Optional.of(entity);
  }

  /** The entity of one source table: its block under {@code tables}, the database's settings, the defaults. */
  private SilverEntity read(SourceTable table, TableName silverTable, List<String> problems) {
    Config own = tables.getOrDefault(table.toString(), ConfigFactory.empty());
    // A table's settings are named at its own block, also before it has one: that is where a key or schema goes.
    String ownPath = path + ".tables." + ConfigUtil.joinPath(table.toString());
    Config fixed = ConfigFactory.parseMap(Map.of("source", source.toString(), "table", silverTable.toString()));
    ConfigReader reader = new ConfigReader(own.withFallback(fixed), ownPath, problems, Path.of(""))
        .withFallback(settings, path).withFallback(defaults, defaultsPath);
    int before = problems.size();
    SilverEntity entity = SilverEntity.read(name + "." + table, reader);
    return problems.size() > before ? null : entity;
  }

  public String name() {
    return name;
  }

  /** Where the database is configured ({@code tributary.silver.databases.shop}). */
  public String configPath() {
    return path;
  }

  /** The bronze table the database's change events are in. */
  public TableName source() {
    return source;
  }

  /** The namespace of the database's silver tables. */
  public String namespace() {
    return template.namespace();
  }

  public TableTemplate template() {
    return template;
  }

  /** Whether {@code table} may be one of the database's silver tables (its name fits the template, or a block's). */
  public boolean mayHold(TableName table) {
    return template.fits(table) || tables.values().stream().anyMatch(own -> own.hasPath("table")
        && table.toString().equals(own.getString("table")));
  }

  public Duration trigger() {
    return sample.trigger();
  }

  public long maxRowsPerTrigger() {
    return sample.maxRowsPerTrigger();
  }

  /** Upper bound of bronze files per micro-batch from a Delta bronze table. */
  public long maxFilesPerTrigger() {
    return sample.maxFilesPerTrigger();
  }

  /** How many tables of one batch are merged side by side. */
  public int mergeParallelism() {
    return mergeParallelism;
  }

  public SilverEntity.Decoder decoder() {
    return sample.decoder();
  }

  /** The source tables with a block of their own ({@code schema.table}). */
  public Set<String> configuredTables() {
    return tables.keySet();
  }

  @Override
  public String toString() {
    return "database " + name + " (" + source + " -> " + template + ")";
  }
}
