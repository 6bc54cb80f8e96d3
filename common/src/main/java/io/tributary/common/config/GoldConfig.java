package io.tributary.common.config;

import java.util.Set;
import java.util.regex.Pattern;

/**
 * The gold layer: versioned SQL models, one {@code <table>.sql} file each, built into Iceberg or Delta tables.
 *
 * @param format the table format of the gold tables
 * @param models the folder of the model files: a local path (relative to the working directory) or any Hadoop file
 *     system URI ({@code s3a://bucket/gold/models}), so that a cluster run reads the same files as a local one
 * @param namespace the catalog namespace of the gold tables: model {@code daily_revenue} is table
 *     {@code <catalog>.<namespace>.daily_revenue}
 */
public record GoldConfig(TableFormat format, String models, String namespace) {
  static final Set<String> KEYS = Set.of("format", "models", "namespace");
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  static GoldConfig read(ConfigReader reader) {
    reader.rejectUnknownKeys(KEYS);
    TableFormat format = reader.oneOf("format", TableFormat.class);
    String namespace = reader.string("namespace");
    if (namespace != null && !IDENTIFIER.matcher(namespace).matches()) {
      reader.problem("namespace", "must be a simple identifier, got '" + namespace + "'");
    }
    return new GoldConfig(format, reader.location("models"), namespace);
  }

  /** The gold table of a model, e.g. {@code gold.daily_revenue}. */
  public TableName table(String model) {
    return new TableName(namespace, model);
  }
}
