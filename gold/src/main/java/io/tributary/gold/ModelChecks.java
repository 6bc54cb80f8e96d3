package io.tributary.gold;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Checks a model's result before it is committed: what its materialization needs (an incremental model's rows
 * inside the interval, a merge model's key unique) and then each declared test. The first failure throws a
 * {@link ModelFailedException} with the number of offending rows and a sample of them.
 */
final class ModelChecks {
  private static final int SAMPLE = 5;

  private ModelChecks() {}

  /** Runs every check on {@code result} (a view); returns the names of the declared tests that passed. */
  static List<String> run(SparkSession spark, GoldModel model, String result, Interval interval,
      Function<String, String> tables) {
    StructType schema = spark.table(result).schema();
    switch (model.materialization()) {
      case INCREMENTAL -> {
        String column = model.partitionBy().orElseThrow();
        DataType type = typeOf(schema, column, model, "partition-by");
        if (!type.equals(DataTypes.DateType)) {
          throw new ModelFailedException("model " + model.name() + ": partition-by column " + column
              + " must be a DATE, the result has " + type.sql() + " (select CAST(... AS DATE) AS " + column + ")");
        }
        expectNone(spark, model, "rows with " + column + " outside the run's interval " + interval
            + " (an incremental model filters its input with {{ start }} and {{ end }})", "SELECT * FROM " + result + " WHERE " + column
            + " IS NULL OR " + column + " < " + interval.startLiteral() + " OR " + column + " >= "
            + interval.endLiteral());
      }
      case MERGE -> {
        model.uniqueKey().forEach(column -> typeOf(schema, column, model, "unique-key"));
        String key = String.join(", ", model.uniqueKey());
        expectNone(spark, model, "unique-key (" + key + ") is not unique in the result", "SELECT " + key
            + ", count(*) AS occurrences FROM " + result + " GROUP BY " + key + " HAVING count(*) > 1");
      }
      case TABLE -> { }
    }
    List<String> passed = new ArrayList<>();
    for (ModelTest test : model.tests()) {
      expectNone(spark, model, "test " + test.describe() + " failed", test.offendingRows(result, tables));
      passed.add(test.describe());
    }
    return passed;
  }

  private static DataType typeOf(StructType schema, String column, GoldModel model, String header) {
    for (StructField field : schema.fields()) {
      if (field.name().equals(column)) {
        return field.dataType();
      }
    }
    throw new ModelFailedException("model " + model.name() + ": " + header + " column " + column
        + " is not in its result (columns: " + String.join(", ", schema.fieldNames()) + ")");
  }

  /** {@code failure} says what it means when the query finds rows. */
  private static void expectNone(SparkSession spark, GoldModel model, String failure, String query) {
    Dataset<Row> offending;
    try {
      offending = spark.sql(query);
    } catch (Exception e) {
      throw new ModelFailedException("model " + model.name() + ": cannot check for " + failure + ": " + e.getMessage()
          + "\n  query: " + query);
    }
    long count = offending.count();
    if (count > 0) {
      throw new ModelFailedException("model " + model.name() + ": " + failure + ": " + count + " offending row"
          + (count == 1 ? "" : "s") + (count > SAMPLE ? ", e.g." : ":") + "\n    "
          + String.join("\n    ", offending.limit(SAMPLE).toJSON().collectAsList()));
    }
  }
}
