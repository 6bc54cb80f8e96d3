package io.tributary.silver;

import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * The lowest and highest value of a batch's first key column. Every row of the table a change can match lies in that
 * range, so the MERGE's join condition may say so: Iceberg then skips the files whose key range lies outside it
 * (their column statistics), and a batch of new keys from an ever-growing sequence (the usual primary key) reads
 * none of the table instead of all of it. A batch that touches keys across the table gains nothing and loses
 * nothing.
 */
record KeyRange(String column, String lowest, String highest) {

  /** The range of {@code changes}' first key column; empty for a type without a useful order, or no keys. */
  static Optional<KeyRange> of(Dataset<Row> changes, Columns columns) {
    String column = columns.key().get(0);
    StructType schema = changes.schema();
    DataType type = schema.fields()[schema.fieldIndex(column)].dataType();
    if (!ordered(type)) {
      return Optional.empty();
    }
    String quoted = Columns.quote(column);
    Row range = changes.selectExpr("min(" + quoted + ")", "max(" + quoted + ")").first();
    if (range.isNullAt(0)) {
      return Optional.empty();
    }
    return Optional.of(new KeyRange(column, literal(range.get(0), type), literal(range.get(1), type)));
  }

  /** {@code alias.column BETWEEN lowest AND highest}. */
  String within(String alias) {
    return alias + "." + Columns.quote(column) + " BETWEEN " + lowest + " AND " + highest;
  }

  /** Atomic types whose order Parquet's statistics keep: numbers, strings, dates, timestamps. */
  private static boolean ordered(DataType type) {
    return type instanceof org.apache.spark.sql.types.AtomicType && !(type instanceof BinaryType)
        && !(type instanceof BooleanType);
  }

  private static String literal(Object value, DataType type) {
    return Literal.create(value, type).sql();
  }
}
