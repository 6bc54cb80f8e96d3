package io.tributary.common.config;

/** The table format of a layer; Iceberg is the default, Delta Lake the alternative. */
public enum TableFormat {
  ICEBERG,
  DELTA
}
