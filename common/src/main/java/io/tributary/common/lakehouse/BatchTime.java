package io.tributary.common.lakehouse;

import java.sql.Timestamp;
import java.time.Instant;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.api.java.UDF0;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;

/**
 * The time a micro-batch is written, as a column whose generated code is the same in every batch.
 *
 * <p>{@code current_timestamp()} becomes a timestamp literal when a query is planned, and Spark writes a timestamp
 * literal's value into the Java code it generates. Every batch then had code of its own, so every stage carrying the
 * time (in a MERGE, most of them) was compiled again, by Janino and then by the JIT, in every batch. Here the value
 * is an object that the generated code refers to: one batch's code is the next one's, and Spark's cache of compiled
 * classes serves it.
 */
public final class BatchTime {
  private BatchTime() {}

  /** A column holding {@code time} in every row. */
  public static Column of(Instant time) {
    Timestamp value = Timestamp.from(time);
    // Nondeterministic on purpose: the optimizer folds a deterministic call without arguments into a literal.
    return functions.udf((UDF0<Timestamp>) () -> value, DataTypes.TimestampType).asNondeterministic().apply();
  }
}
