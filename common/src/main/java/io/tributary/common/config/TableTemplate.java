package io.tributary.common.config;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a database block names the silver table of each source table: {@code namespace.name} where the name may hold
 * {@code {table}}, {@code {schema}} and {@code {topic}}. A Debezium topic is {@code <prefix>.<schema>.<table>}
 * (MySQL: {@code <prefix>.<database>.<table>}): {@code {table}} is its last segment, {@code {schema}} the one before,
 * {@code {topic}} all of it. Each value is lower-cased and every character outside {@code [a-z0-9_]} becomes
 * {@code _}, so any topic gives a valid, unquoted table name. The namespace is fixed, so that every table of the
 * database can be found in it.
 */
public final class TableTemplate {
  private static final Pattern VARIABLE = Pattern.compile("\\{([^}]*)}");

  private final String namespace;
  private final String name;

  private TableTemplate(String namespace, String name) {
    this.namespace = namespace;
    this.name = name;
  }

  /** The template at {@code key}, or empty after reporting why it cannot be one. */
  static Optional<TableTemplate> read(ConfigReader reader, String key) {
    String text = reader.string(key);
    if (text == null) {
      return Optional.empty();
    }
    String[] parts = text.split("\\.", -1);
    if (parts.length != 2 || parts[0].isEmpty() || parts[1].isEmpty()) {
      reader.valueProblem(key, "must be namespace.name with {table} (or {topic}) in the name, e.g."
          + " \"silver.shop_{table}\"; got '" + text + "'");
      return Optional.empty();
    }
    if (!parts[0].matches("[A-Za-z_][A-Za-z0-9_]*")) {
      reader.valueProblem(key, "the namespace '" + parts[0] + "' must be a fixed, simple identifier (variables go in"
          + " the table name, so that every table of the database is in one namespace)");
      return Optional.empty();
    }
    Matcher variables = VARIABLE.matcher(parts[1]);
    boolean names = false;
    while (variables.find()) {
      String variable = variables.group(1);
      if (!variable.equals("table") && !variable.equals("schema") && !variable.equals("topic")) {
        reader.valueProblem(key, "knows {table}, {schema} and {topic}; got {" + variable + "}");
        return Optional.empty();
      }
      names |= !variable.equals("schema");
    }
    if (!names) {
      reader.valueProblem(key, "must hold {table} or {topic}, or every source table would get the same name; got '"
          + text + "'");
      return Optional.empty();
    }
    if (!parts[1].replaceAll(VARIABLE.pattern(), "x").matches("[A-Za-z0-9_]+")) {
      reader.valueProblem(key, "the name may hold letters, digits, _ and variables only; got '" + parts[1] + "'");
      return Optional.empty();
    }
    return Optional.of(new TableTemplate(parts[0], parts[1]));
  }

  /** The namespace every table of the database is in. */
  public String namespace() {
    return namespace;
  }

  /** The silver table of the source table whose changes come on {@code topic}. */
  public TableName tableFor(String topic) {
    return resolve(SourceTable.of(topic), topic);
  }

  /** The silver table of a source table named in the config (a template with {@code {topic}} gets its name). */
  TableName tableFor(SourceTable source) {
    return resolve(source, source.toString());
  }

  /** Whether {@code table} is a name this template gives to some topic. */
  boolean fits(TableName table) {
    if (!table.namespace().equals(namespace)) {
      return false;
    }
    StringBuilder regex = new StringBuilder("(?:t_)?");
    Matcher variables = VARIABLE.matcher(name);
    int last = 0;
    while (variables.find()) {
      regex.append(Pattern.quote(name.substring(last, variables.start()))).append("[a-z0-9_]*");
      last = variables.end();
    }
    regex.append(Pattern.quote(name.substring(last)));
    return table.table().matches(regex.toString());
  }

  /** Whether the name holds {@code {topic}}, which a source table's name alone does not give. */
  boolean usesTopic() {
    return name.contains("{topic}");
  }

  private TableName resolve(SourceTable source, String topic) {
    String resolved = name.replace("{table}", identifier(source.table()))
        .replace("{schema}", identifier(source.schema()))
        .replace("{topic}", identifier(topic));
    // A name may not start with a digit unquoted (a table "2024_sales").
    return new TableName(namespace, Character.isDigit(resolved.charAt(0)) ? "t_" + resolved : resolved);
  }

  private static String identifier(String value) {
    return value.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
  }

  @Override
  public String toString() {
    return namespace + "." + name;
  }

  /**
   * The source table a Debezium topic carries: its last two segments ({@code public.orders} of
   * {@code shop.public.orders}); a topic without dots is a table of no schema.
   */
  public record SourceTable(String schema, String table) {
    public static SourceTable of(String topic) {
      int last = topic.lastIndexOf('.');
      if (last < 0) {
        return new SourceTable("", topic);
      }
      int before = topic.lastIndexOf('.', last - 1);
      return new SourceTable(topic.substring(before + 1, last), topic.substring(last + 1));
    }

    /** {@code schema.table}, as a database block's {@code tables} and {@code exclude} name it. */
    @Override
    public String toString() {
      return schema.isEmpty() ? table : schema + "." + table;
    }
  }
}
