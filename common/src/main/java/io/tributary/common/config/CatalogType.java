package io.tributary.common.config;

/** Iceberg catalog implementations Tributary knows how to configure; anything else goes through properties. */
public enum CatalogType {
  HADOOP,
  HIVE,
  REST,
  JDBC,
  GLUE
}
