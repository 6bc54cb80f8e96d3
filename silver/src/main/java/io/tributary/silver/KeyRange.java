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
    if (type instanceof org.apache.spark.sql.types.IntegralType) {
      long lowest = ((Number) range.get(0)).longValue();
      long highest = ((Number) range.get(1)).longValue();
      long step = Math.max(1, Long.highestOneBit(Math.max(magnitude(lowest), magnitude(highest))) >> 3);
      return Optional.of(new KeyRange(column, coarse(lowest, -step, type), coarse(highest, step, type)));
    }
    return Optional.of(new KeyRange(column, literal(range.get(0), type), literal(range.get(1), type)));
  }

  /**
   * An integer range's bounds widened to a grid of an eighth of the power of two of its larger bound. Spark writes integer literals into the code it generates, so exact bounds made
   * every stage under the MERGE's join new code in every batch (one class on Iceberg, seven on Delta, each compiled
   * again); bounds on a coarse grid repeat from batch to batch. A wider range is still a range holding every key of
   * the batch; it only reads files at most an eighth of the key's magnitude further.
   */
  private static long magnitude(long value) {
    return value == Long.MIN_VALUE ? Long.MAX_VALUE : Math.abs(value);
  }

  /** {@code bound} moved to the grid of {@code |signedStep|}: down for a negative step, up for a positive one. */
  static String coarse(long bound, long signedStep, DataType type) {
    int direction = Long.signum(signedStep);
    long step = Math.abs(signedStep);
    long offset = Math.floorMod(bound, step);
    long widened = direction < 0 ? bound - offset
        : offset == 0 ? bound : bound > Long.MAX_VALUE - (step - offset) ? Long.MAX_VALUE : bound + (step - offset);
    long lowestOfType = type instanceof org.apache.spark.sql.types.IntegerType ? Integer.MIN_VALUE
        : type instanceof org.apache.spark.sql.types.ShortType ? Short.MIN_VALUE
        : type instanceof org.apache.spark.sql.types.ByteType ? Byte.MIN_VALUE : Long.MIN_VALUE;
    long highestOfType = type instanceof org.apache.spark.sql.types.IntegerType ? Integer.MAX_VALUE
        : type instanceof org.apache.spark.sql.types.ShortType ? Short.MAX_VALUE
        : type instanceof org.apache.spark.sql.types.ByteType ? Byte.MAX_VALUE : Long.MAX_VALUE;
    long clamped = Math.max(lowestOfType, Math.min(highestOfType, widened));
    Object value = type instanceof org.apache.spark.sql.types.IntegerType ? (Object) (int) clamped
        : type instanceof org.apache.spark.sql.types.ShortType ? (Object) (short) clamped
        : type instanceof org.apache.spark.sql.types.ByteType ? (Object) (byte) clamped : (Object) clamped;
    return literal(value, type);
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
