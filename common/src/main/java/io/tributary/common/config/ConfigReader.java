package io.tributary.common.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads typed values below one path of a config and collects problems instead of throwing, so that a user sees
 * every mistake in one run. Keys in problems are full paths ({@code tributary.bronze.sources.orders.trigger}).
 */
final class ConfigReader {
  /** Settings a path inherits (e.g. a source's from {@code defaults}), and where the user wrote them. */
  private record Inherited(Config config, String path) {}

  private final Config config;
  private final String prefix;
  private final List<String> problems;
  private final Path baseDir;
  /** What is set at this path itself; the rest of {@link #config} comes from {@link #inherited}, in order. */
  private final Config own;
  private final List<Inherited> inherited;

  /** @param baseDir what relative local paths in the config are relative to */
  ConfigReader(Config config, String prefix, List<String> problems, Path baseDir) {
    this(config, prefix, problems, baseDir, config, List.of());
  }

  private ConfigReader(Config config, String prefix, List<String> problems, Path baseDir, Config own,
      List<Inherited> inherited) {
    this.config = config;
    this.prefix = prefix;
    this.problems = problems;
    this.baseDir = baseDir;
    this.own = own;
    this.inherited = inherited;
  }

  ConfigReader child(String key) {
    if (!config.hasPath(key)) {
      valueProblem(key, "is missing");
      return new ConfigReader(com.typesafe.config.ConfigFactory.empty(), path(key), problems, baseDir);
    }
    try {
      // What the child inherits comes from the same blocks as this path's (defaults.table-properties, ...).
      List<Inherited> childInherited = new ArrayList<>();
      for (Inherited source : inherited) {
        objectAt(source.config(), key).ifPresent(below -> childInherited.add(new Inherited(below,
            source.path() + "." + key)));
      }
      return new ConfigReader(config.getConfig(key), path(key), problems, baseDir,
          objectAt(own, key).orElse(com.typesafe.config.ConfigFactory.empty()), List.copyOf(childInherited));
    } catch (ConfigException.WrongType e) {
      valueProblem(key, "must be an object, got " + describe(config.getValue(key)));
      return new ConfigReader(com.typesafe.config.ConfigFactory.empty(), path(key), problems, baseDir);
    }
  }

  private static Optional<Config> objectAt(Config config, String key) {
    return config.hasPath(key) && config.getValue(key).valueType() == ConfigValueType.OBJECT
        ? Optional.of(config.getConfig(key)) : Optional.empty();
  }

  /**
   * The same path, with missing keys taken from {@code fallback}, which the user wrote at {@code fallbackPath} (e.g.
   * a source's defaults): a problem with an inherited value is reported there, once.
   */
  ConfigReader withFallback(Config fallback, String fallbackPath) {
    List<Inherited> chain = new ArrayList<>(inherited);
    chain.add(new Inherited(fallback, fallbackPath));
    return new ConfigReader(config.withFallback(fallback), prefix, problems, baseDir, own, List.copyOf(chain));
  }

  boolean has(String key) {
    return config.hasPath(key);
  }

  String string(String key) {
    if (!config.hasPath(key)) {
      valueProblem(key, "is missing");
      return null;
    }
    ConfigValue value = config.getValue(key);
    if (value.valueType() == ConfigValueType.OBJECT || value.valueType() == ConfigValueType.LIST) {
      valueProblem(key, "must be a string, got " + describe(value));
      return null;
    }
    String text = config.getString(key).trim();
    if (text.isEmpty()) {
      valueProblem(key, "must not be empty");
      return null;
    }
    return text;
  }

  Optional<String> optionalString(String key) {
    return config.hasPath(key) ? Optional.ofNullable(string(key)) : Optional.empty();
  }

  /** A location: a local path (made absolute against the base folder) or a URI (s3a://, hdfs://, file:) as is. */
  String location(String key) {
    return Locations.resolve(string(key), baseDir);
  }

  Optional<String> optionalLocation(String key) {
    return config.hasPath(key) ? Optional.ofNullable(location(key)) : Optional.empty();
  }

  <E extends Enum<E>> E oneOf(String key, Class<E> type) {
    String text = string(key);
    if (text == null) {
      return null;
    }
    for (E candidate : type.getEnumConstants()) {
      if (ConfigNames.of(candidate).equals(text)) {
        return candidate;
      }
    }
    List<String> names = new ArrayList<>();
    for (E candidate : type.getEnumConstants()) {
      names.add(ConfigNames.of(candidate));
    }
    valueProblem(key, "must be one of " + String.join(", ", names) + "; got '" + text + "'");
    return null;
  }

  long positiveLong(String key) {
    if (!config.hasPath(key)) {
      valueProblem(key, "is missing");
      return 0;
    }
    try {
      long value = config.getLong(key);
      if (value <= 0) {
        valueProblem(key, "must be a positive number, got " + value);
      }
      return value;
    } catch (ConfigException.WrongType e) {
      valueProblem(key, "must be a positive number, got " + describe(config.getValue(key)));
      return 0;
    }
  }

  /** A number from 0 to 1. */
  double ratio(String key) {
    if (!config.hasPath(key)) {
      valueProblem(key, "is missing");
      return 1;
    }
    try {
      double value = config.getDouble(key);
      if (!(value >= 0 && value <= 1)) {
        valueProblem(key, "must be a number from 0 to 1, got " + value);
      }
      return value;
    } catch (ConfigException.WrongType e) {
      valueProblem(key, "must be a number from 0 to 1, got " + describe(config.getValue(key)));
      return 1;
    }
  }

  Duration positiveDuration(String key) {
    if (!config.hasPath(key)) {
      valueProblem(key, "is missing");
      return Duration.ZERO;
    }
    try {
      Duration value = config.getDuration(key);
      if (value.isNegative() || value.isZero()) {
        valueProblem(key, "must be a positive duration such as '10 seconds', got " + config.getValue(key).render());
      }
      return value;
    } catch (ConfigException.BadValue | ConfigException.WrongType e) {
      valueProblem(key, "must be a duration such as '10 seconds' or '1m', got " + describe(config.getValue(key)));
      return Duration.ZERO;
    }
  }

  /** A size such as {@code 128MiB} or {@code 134217728}, in bytes. */
  long positiveBytes(String key) {
    if (!config.hasPath(key)) {
      valueProblem(key, "is missing");
      return 0;
    }
    try {
      long value = config.getBytes(key);
      if (value <= 0) {
        valueProblem(key, "must be a positive size such as '128MiB', got " + config.getValue(key).render());
      }
      return value;
    } catch (ConfigException.BadValue | ConfigException.WrongType e) {
      valueProblem(key, "must be a size such as '128MiB' or '512KiB', got " + describe(config.getValue(key)));
      return 0;
    }
  }

  /** A duration that may be zero ({@code 0 minutes}: no waiting). */
  Duration nonNegativeDuration(String key) {
    if (!config.hasPath(key)) {
      valueProblem(key, "is missing");
      return Duration.ZERO;
    }
    try {
      Duration value = config.getDuration(key);
      if (value.isNegative()) {
        valueProblem(key, "must not be negative, got " + config.getValue(key).render());
      }
      return value;
    } catch (ConfigException.BadValue | ConfigException.WrongType e) {
      valueProblem(key, "must be a duration such as '10 minutes' or '0s', got " + describe(config.getValue(key)));
      return Duration.ZERO;
    }
  }

  List<String> stringList(String key) {
    if (!config.hasPath(key)) {
      valueProblem(key, "is missing");
      return List.of();
    }
    try {
      List<String> values = config.getStringList(key);
      if (values.isEmpty()) {
        valueProblem(key, "must not be empty");
      }
      return values;
    } catch (ConfigException.WrongType e) {
      valueProblem(key, "must be a list of strings, got " + describe(config.getValue(key)));
      return List.of();
    }
  }

  /** A list that may be empty, or {@code null} when the key is absent. */
  List<String> optionalStringList(String key) {
    if (!config.hasPath(key)) {
      return null;
    }
    try {
      return config.getStringList(key);
    } catch (ConfigException.WrongType e) {
      valueProblem(key, "must be a list of strings, got " + describe(config.getValue(key)));
      return List.of();
    }
  }

  /** A flat map of string settings; nested keys are joined with dots (HOCON reads a.b = c as nested). */
  Map<String, String> stringMap(String key) {
    Map<String, String> result = new LinkedHashMap<>();
    if (!config.hasPath(key)) {
      return result;
    }
    ConfigReader map = child(key);
    for (Map.Entry<String, ConfigValue> entry : map.config.entrySet()) {
      ConfigValue value = entry.getValue();
      if (value.valueType() == ConfigValueType.LIST) {
        map.valueProblem(entry.getKey(), "must be a string, got a list");
        continue;
      }
      // entrySet() keys are path expressions ("a.b" quoted); a flat setting name joins the path elements.
      result.put(String.join(".", com.typesafe.config.ConfigUtil.splitPath(entry.getKey())),
          String.valueOf(value.unwrapped()));
    }
    return result;
  }

  /** Reports keys below this path that nobody reads; a typo must not pass silently as a default. */
  void rejectUnknownKeys(Set<String> known) {
    for (String key : config.root().keySet()) {
      if (!known.contains(key)) {
        valueProblem(quoted(key), "is not a known setting (known: " + String.join(", ", known.stream().sorted().toList()) + ")");
      }
    }
  }

  /** A problem of this path's settings together (e.g. a combination), reported at {@code key} below this path. */
  void problem(String key, String what) {
    add(path(key) + ": " + what);
  }

  /**
   * A problem with the value of {@code key} alone, reported where the user wrote it: here, or the block this path
   * inherits it from (a value under defaults is reported once, at defaults, not once per source that inherits it).
   */
  void valueProblem(String key, String what) {
    add(whereSet(key) + ": " + what);
  }

  private void add(String problem) {
    if (!problems.contains(problem)) {
      problems.add(problem);
    }
  }

  /** The full path where the user wrote {@code key}: here, or where this path inherits it from. */
  private String whereSet(String key) {
    if (!key.isEmpty() && !own.hasPathOrNull(key)) {
      for (Inherited source : inherited) {
        if (source.config().hasPathOrNull(key)) {
          return source.path() + "." + key;
        }
      }
    }
    return path(key);
  }

  String path(String key) {
    if (key.isEmpty()) {
      return prefix;
    }
    return prefix.isEmpty() ? key : prefix + "." + key;
  }

  String prefix() {
    return prefix;
  }

  /** The settings at this path, with what it inherits. */
  Config config() {
    return config;
  }

  /** The keys set at this path (a block of named blocks: their names). */
  List<String> keys() {
    return config.root().keySet().stream().sorted().toList();
  }

  /** Where problems are collected: a reader made later for the same config reports into it. */
  List<String> problems() {
    return problems;
  }

  int problemCount() {
    return problems.size();
  }

  private static String quoted(String name) {
    return name.matches("[A-Za-z0-9_-]+") ? name : com.typesafe.config.ConfigUtil.quoteString(name);
  }

  private static String describe(ConfigValue value) {
    return switch (value.valueType()) {
      case OBJECT -> "an object";
      case LIST -> "a list";
      case NULL -> "null";
      default -> "'" + value.unwrapped() + "'";
    };
  }
}
