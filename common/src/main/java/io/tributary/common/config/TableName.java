package io.tributary.common.config;

import java.util.regex.Pattern;

/** A table inside the lakehouse catalog: {@code namespace.table}, both simple identifiers. */
public record TableName(String namespace, String table) {
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  static TableName parse(ConfigReader reader, String key) {
    String text = reader.string(key);
    if (text == null) {
      return null;
    }
    TableName name = parseText(text);
    if (name == null) {
      reader.valueProblem(key, "must be '<namespace>.<table>' with simple identifiers, got '" + text + "'");
    }
    return name;
  }

  /** {@code namespace.table}, or null when the text is not that. */
  public static TableName parseText(String text) {
    String[] parts = text.split("\\.", -1);
    if (parts.length != 2 || !IDENTIFIER.matcher(parts[0]).matches() || !IDENTIFIER.matcher(parts[1]).matches()) {
      return null;
    }
    return new TableName(parts[0], parts[1]);
  }

  @Override
  public String toString() {
    return namespace + "." + table;
  }
}
