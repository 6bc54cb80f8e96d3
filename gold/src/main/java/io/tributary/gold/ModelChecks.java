package io.tributary.gold;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Checks a model's result before it is committed: what its materialization needs (an incremental model's rows
 * inside the interval, a merge model's key unique) and then each declared test. All checks are counted in one query
 * (checks of single rows in one pass, the others as subqueries); the first that finds rows throws a
 * {@link ModelFailedException} with their number and a sample of them.
 */
final class ModelChecks {
  private static final int SAMPLE = 5;

  /**
   * @param failure what it means when rows are found, e.g. {@code test unique(day) failed}
   * @param violation for a check of single rows, the condition a breaking row meets
   * @param offendingRows the query selecting the breaking rows
   */
  private record Check(String failure, Optional<String> violation, String offendingRows) {
    static Check ofRows(String failure, String result, String violation) {
      return new Check(failure, Optional.of(violation), "SELECT * FROM " + result + " WHERE " + violation);
    }

    /** The expression counting this check's rows in the one query over {@code result}. */
    String counter() {
      return violation.map(condition -> "count_if(" + condition + ")")
          .orElse("(SELECT count(*) FROM (" + offendingRows + "))");
    }
  }

  /**
   * @param rows the number of rows in the result
   * @param passed the declared tests, as written
   */
  record Outcome(long rows, List<String> passed) {}

  private ModelChecks() {}

  /** Runs every check on {@code result} (a view). */
  static Outcome run(SparkSession spark, GoldModel model, String result, Interval interval,
      Function<String, String> tables) {
    StructType schema = spark.table(result).schema();
    List<Check> checks = new ArrayList<>();
    switch (model.materialization()) {
      case INCREMENTAL -> {
        String column = model.partitionBy().orElseThrow();
        DataType type = typeOf(schema, column, model, "partition-by");
        if (!type.equals(DataTypes.DateType)) {
          throw new ModelFailedException("model " + model.name() + ": partition-by column " + column
              + " must be a DATE, the result has " + type.sql() + " (select CAST(... AS DATE) AS " + column + ")");
        }
        checks.add(Check.ofRows("rows with " + column + " outside the run's interval " + interval
            + " (an incremental model filters its input with {{ start }} and {{ end }})", result, column + " IS NULL OR "
            + column + " < " + interval.startLiteral() + " OR " + column + " >= " + interval.endLiteral()));
      }
      case MERGE -> {
        model.uniqueKey().forEach(column -> typeOf(schema, column, model, "unique-key"));
        String key = String.join(", ", model.uniqueKey());
        checks.add(new Check("unique-key (" + key + ") is not unique in the result", Optional.empty(), "SELECT "
            + key + ", count(*) AS occurrences FROM " + result + " GROUP BY " + key + " HAVING count(*) > 1"));
      }
      case TABLE -> { }
    }
    for (ModelTest test : model.tests()) {
      checks.add(new Check("test " + test.describe() + " failed", test.rowViolation(),
          test.offendingRows(result, tables)));
    }
    Row counts = count(spark, model, result, checks);
    for (int i = 0; i < checks.size(); i++) {
      long found = counts.getLong(i + 1);
      if (found > 0) {
        Check check = checks.get(i);
        throw new ModelFailedException("model " + model.name() + ": " + check.failure() + ": " + found
            + " offending row" + (found == 1 ? "" : "s") + (found > SAMPLE ? ", e.g." : ":") + "\n    "
            + String.join("\n    ", spark.sql(check.offendingRows()).limit(SAMPLE).toJSON().collectAsList()));
      }
    }
    return new Outcome(counts.getLong(0), model.tests().stream().map(ModelTest::describe).toList());
  }

  /** The result's row count, then each check's count of offending rows. */
  private static Row count(SparkSession spark, GoldModel model, String result, List<Check> checks) {
    try {
      return spark.sql("SELECT count(*)" + String.join("", checks.stream().map(check -> ", " + check.counter())
          .toList()) + " FROM " + result).first();
    } catch (Exception e) {
      // Name the check that cannot run (a test on a column the result does not have).
      for (Check check : checks) {
        try {
          spark.sql(check.offendingRows()).schema();
        } catch (Exception cause) {
          throw new ModelFailedException("model " + model.name() + ": cannot check for " + check.failure() + ": "
              + cause.getMessage().lines().findFirst().orElse("") + "\n    query: " + check.offendingRows());
        }
      }
      throw e;
    }
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
}
