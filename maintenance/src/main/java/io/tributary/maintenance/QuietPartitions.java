package io.tributary.maintenance;

import java.sql.Date;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.UnboundTerm;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The partitions of an Iceberg table that no commit touched since a cutoff, as a filter for compaction: a stream's
 * current partition (bronze's today) is left alone, so compaction and the stream do not fight over its files.
 */
final class QuietPartitions {
  private QuietPartitions() {}

  /**
   * A filter matching every partition but those updated at or after {@code cutoff}; empty when no partition is
   * quiet (nothing to compact). Unpartitioned tables are one partition.
   */
  static Optional<Expression> since(SparkSession spark, Table table, String sqlName, Instant cutoff) {
    PartitionSpec spec = table.spec();
    // last_updated_at is null once the snapshot that wrote the partition's files has expired: long quiet.
    String updatedSince = "coalesce(last_updated_at >= TIMESTAMP_MICROS(" + cutoff.toEpochMilli() * 1000
        + "), false)";
    if (spec.isUnpartitioned()) {
      long recent = spark.sql("SELECT count_if(" + updatedSince + ") FROM " + sqlName + ".partitions").first()
          .getLong(0);
      return recent > 0 ? Optional.empty() : Optional.of(Expressions.alwaysTrue());
    }
    List<Row> partitions = spark.sql("SELECT partition, " + updatedSince + " AS recent FROM " + sqlName
        + ".partitions WHERE spec_id = " + spec.specId()).collectAsList();
    Expression recent = Expressions.alwaysFalse();
    boolean anyQuiet = false;
    for (Row row : partitions) {
      if (!row.getBoolean(1)) {
        anyQuiet = true;
        continue;
      }
      Row partition = row.getStruct(0);
      Expression match = Expressions.alwaysTrue();
      // The struct holds the fields of every spec the table has had: read the current spec's by name.
      for (PartitionField field : spec.fields()) {
        match = Expressions.and(match, equal(table, field, partition.get(partition.fieldIndex(field.name()))));
      }
      recent = Expressions.or(recent, match);
    }
    return anyQuiet ? Optional.of(Expressions.not(recent)) : Optional.empty();
  }

  /** {@code transform(column) = value} for one partition field, or {@code column IS NULL}. */
  private static Expression equal(Table table, PartitionField field, Object value) {
    String column = table.schema().findColumnName(field.sourceId());
    String transform = field.transform().toString();
    UnboundTerm<Object> term;
    if (transform.equals("identity")) {
      term = Expressions.ref(column);
    } else if (transform.equals("year")) {
      term = Expressions.year(column);
    } else if (transform.equals("month")) {
      term = Expressions.month(column);
    } else if (transform.equals("day")) {
      term = Expressions.day(column);
    } else if (transform.equals("hour")) {
      term = Expressions.hour(column);
    } else if (transform.startsWith("bucket[")) {
      term = Expressions.bucket(column, Integer.parseInt(transform.substring(7, transform.length() - 1)));
    } else if (transform.startsWith("truncate[")) {
      term = Expressions.truncate(column, Integer.parseInt(transform.substring(9, transform.length() - 1)));
    } else {
      return Expressions.alwaysTrue(); // void: every row matches
    }
    if (value == null) {
      return Expressions.isNull(term);
    }
    return Expressions.equal(term, icebergValue(value));
  }

  /** Spark's partition values in the types Iceberg literals take (dates as days, timestamps as micros). */
  private static Object icebergValue(Object value) {
    if (value instanceof Date date) {
      return (int) date.toLocalDate().toEpochDay();
    }
    if (value instanceof LocalDate date) {
      return (int) date.toEpochDay();
    }
    if (value instanceof Timestamp timestamp) {
      Instant instant = timestamp.toInstant();
      return instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1000;
    }
    return value;
  }
}
