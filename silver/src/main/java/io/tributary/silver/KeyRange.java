package io.tributary.silver;

import java.util.Optional;
import java.util.OptionalLong;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampType;

/**
 * Bounds on the table's first key column that every row a batch's change can match lies within. The MERGE's join
 * condition says so, and Iceberg then skips the files whose key range lies outside (their column statistics): a batch
 * of new keys from an ever-growing sequence (the usual primary key) reads none of the table instead of all of it.
 *
 * <p>For whole-number keys (integers, dates, timestamps) the bounds are not the batch's own lowest and highest key
 * but as wide as they can be while skipping the same files: just above the highest key of the files wholly below the
 * batch, just below the lowest of those wholly above, and no bound at all where no file lies beyond. Spark writes
 * such literals into the code it generates, so bounds that moved with every batch made every stage under the join
 * new code in every batch (compiled, loaded and warmed again: measured at 0.3 to 1.3 s of a small batch); bounds
 * taken from files change only when those files do, and a batch whose keys span the table has none. Parquet's row
 * groups inside the files read see the wider bounds. Strings and decimals reach the generated code as references,
 * not text, and keep the batch's own bounds.
 *
 * <p>Where no file can hold a whole-number key within the bounds ({@link Keys#ALL_NEW}: an empty table, an initial
 * load, a batch of keys beyond all of the table's), the batch's changes match no row, and {@link CurrentStateMerge}
 * appends them instead of running a MERGE.
 */
record KeyRange(String column, Optional<String> lowest, Optional<String> highest, Keys keys) {

  /** What the table's files say about the keys within the bounds. */
  enum Keys {
    /** Some file may hold keys within them (or the format cannot tell). */
    MAYBE_HELD,
    /** No file holds a key within them: every change within is of a key new to the table. */
    ALL_NEW
  }

  /**
   * The bounds for {@code changes} on {@code table}, with a Spark job of their own for the changes' span; empty for
   * a type without a useful order, no keys, or when no bound would skip a file and some file may hold the keys. A
   * stream's batch finds the span in its summary's job instead ({@link #span}).
   */
  static Optional<KeyRange> of(Dataset<Row> changes, Columns columns, SilverTable table) {
    String column = columns.key().get(0);
    StructType schema = changes.schema();
    DataType type = schema.fields()[schema.fieldIndex(column)].dataType();
    Optional<String> span = span(Columns.quote(column), type);
    return span.isEmpty() ? Optional.empty()
        : of(column, type, changes.selectExpr(span.get()).first().getStruct(0), table);
  }

  /**
   * An aggregate expression for the span of {@code key}, an expression of the first key column's {@code type}: a
   * struct of its lowest and highest value (whole numbers as Spark holds them: days, microseconds); empty for a type
   * without a useful order.
   */
  static Optional<String> span(String key, DataType type) {
    if (!ordered(type)) {
      return Optional.empty();
    }
    String value = wholeNumber(key, type).orElse(key);
    return Optional.of("named_struct('lowest', min(" + value + "), 'highest', max(" + value + "))");
  }

  /** The bounds for a batch whose first key column, {@code column} of {@code type}, spans {@code span}. */
  static Optional<KeyRange> of(String column, DataType type, Row span, SilverTable table) {
    if (span == null || span.isNullAt(0)) {
      return Optional.empty();
    }
    if (wholeNumber(column, type).isEmpty()) {
      return Optional.of(new KeyRange(column, Optional.of(literal(span.get(0), type)),
          Optional.of(literal(span.get(1), type)), Keys.MAYBE_HELD));
    }
    long lowest = span.getLong(0);
    long highest = span.getLong(1);
    Optional<SilverTable.KeysOutside> outside = table.keysOutside(column, lowest, highest);
    if (outside.isEmpty()) {
      return Optional.of(new KeyRange(column, Optional.of(counted(lowest, type)), Optional.of(counted(highest, type)),
          Keys.MAYBE_HELD));
    }
    OptionalLong below = outside.get().highestBelow();
    OptionalLong above = outside.get().lowestAbove();
    Keys keys = outside.get().noneWithin() ? Keys.ALL_NEW : Keys.MAYBE_HELD;
    if (below.isEmpty() && above.isEmpty() && keys == Keys.MAYBE_HELD) {
      return Optional.empty();
    }
    return Optional.of(new KeyRange(column,
        below.isPresent() ? Optional.of(counted(below.getAsLong() + 1, type)) : Optional.empty(),
        above.isPresent() ? Optional.of(counted(above.getAsLong() - 1, type)) : Optional.empty(), keys));
  }

  /** {@code alias.column >= lowest AND alias.column <= highest}, either bound left out when absent. */
  String within(String alias) {
    return bounds(alias + "." + Columns.quote(column));
  }

  /** The bounds on the table's own column: {@code column >= lowest AND column <= highest}; {@code true} for none. */
  String within() {
    return bounds(Columns.quote(column));
  }

  private String bounds(String key) {
    if (lowest.isEmpty() && highest.isEmpty()) {
      return "true";
    }
    return lowest.map(bound -> key + " >= " + bound).orElse("")
        + (lowest.isPresent() && highest.isPresent() ? " AND " : "")
        + highest.map(bound -> key + " <= " + bound).orElse("");
  }

  /** Atomic types whose order Parquet's statistics keep: numbers, strings, dates, timestamps. */
  private static boolean ordered(DataType type) {
    return type instanceof org.apache.spark.sql.types.AtomicType && !(type instanceof BinaryType)
        && !(type instanceof BooleanType);
  }

  /** The key as the whole number Spark holds it as (days for a date, microseconds for a timestamp), if it is one. */
  private static Optional<String> wholeNumber(String key, DataType type) {
    if (type instanceof ByteType || type instanceof ShortType || type instanceof IntegerType
        || type instanceof LongType) {
      return Optional.of("CAST(" + key + " AS BIGINT)");
    }
    if (type instanceof DateType) {
      return Optional.of("CAST(unix_date(" + key + ") AS BIGINT)");
    }
    if (type instanceof TimestampType) {
      return Optional.of("unix_micros(" + key + ")");
    }
    return Optional.empty();
  }

  /**
   * The SQL literal of whole number {@code value} as a value of {@code type}; a timestamp as its microseconds, since
   * its text in the session's time zone is ambiguous in the hour a clock goes back.
   */
  private static String counted(long value, DataType type) {
    if (type instanceof TimestampType) {
      return "timestamp_micros(" + value + "L)";
    }
    Object internal = type instanceof ByteType ? (Object) (byte) value
        : type instanceof ShortType ? (Object) (short) value
        : type instanceof IntegerType || type instanceof DateType ? (Object) (int) value
        : (Object) value;
    return new Literal(internal, type).sql();
  }

  private static String literal(Object value, DataType type) {
    return Literal.create(value, type).sql();
  }
}
