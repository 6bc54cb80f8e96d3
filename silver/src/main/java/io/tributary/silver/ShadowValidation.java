package io.tributary.silver;

import io.tributary.common.config.SilverEntity;
import io.tributary.common.lakehouse.TableAddress;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A rebuild's check of its shadow table before the switch, in either table format: the keys are unique and the
 * shadow holds rows when bronze does. It reports the shadow's counts next to the live table's; a failure leaves the
 * live table untouched and keeps the shadow for inspection.
 */
final class ShadowValidation {
  private ShadowValidation() {}

  /**
   * Prints the report and fails when the shadow is wrong.
   *
   * @param live the live table, empty when it does not exist yet
   * @param bronzeRecords the bronze records the shadow is built from (a database table's: its topic's)
   */
  static void check(SparkSession spark, SilverEntity entity, TableAddress shadow, TableAddress shadowQuarantine,
      java.util.Optional<TableAddress> live, Dataset<Row> bronzeRecords, PrintStream out) {
    List<String> report = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    String key = StreamShape.key(entity, SilverTable.open(spark, shadow)).stream()
        .map(column -> "`" + column.replace("`", "``") + "`").collect(Collectors.joining(", "));
    boolean history = entity.history() == SilverEntity.History.SCD2;
    String current = history ? " WHERE _is_current" : "";
    long rows = spark.table(shadow.sqlName()).count();
    long bronzeRows = bronzeRecords.count();
    long quarantined = spark.table(shadowQuarantine.sqlName()).count();
    long keys = spark.sql("SELECT count(DISTINCT " + key + ") FROM " + shadow.sqlName() + current).first().getLong(0);
    report.add(String.format("%,d rows, %,d keys (%,d bronze records, %,d quarantined)", rows, keys, bronzeRows,
        quarantined));
    if (live.isPresent()) {
      // For comparison only: the shadow is checked against bronze, so a damaged live table is replaced, not a reason
      // to stop.
      try {
        long liveRows = spark.table(live.get().sqlName()).count();
        long liveKeys = spark.sql("SELECT count(DISTINCT " + key + ") FROM " + live.get().sqlName() + current).first()
            .getLong(0);
        report.add(String.format("live table now: %,d rows, %,d keys", liveRows, liveKeys));
      } catch (Exception unreadable) { // Spark throws its checked SparkException undeclared
        report.add("live table now: cannot be read (" + String.valueOf(unreadable.getMessage()).lines().findFirst()
            .orElse("") + "); the rebuild replaces it");
      }
    }
    for (Row reason : spark.sql("SELECT reason, count(*) AS n FROM " + shadowQuarantine.sqlName()
        + " GROUP BY reason ORDER BY n DESC LIMIT 5").collectAsList()) {
      report.add(String.format("quarantined %,d: %s", reason.getLong(1), reason.getString(0)));
    }
    long duplicated = spark.sql("SELECT count(*) FROM (SELECT " + key + " FROM " + shadow.sqlName() + current
        + " GROUP BY " + key + " HAVING count(*) > 1)").first().getLong(0);
    if (duplicated > 0) {
      problems.add(duplicated + " keys have more than one " + (history ? "current version" : "row"));
    }
    if (bronzeRows > 0 && rows == 0) {
      problems.add("bronze has " + bronzeRows + " records but the rebuilt table is empty (" + quarantined
          + " quarantined): check the entity's decoder, key and schema");
    }
    report.forEach(line -> out.println("      " + line));
    if (!problems.isEmpty()) {
      String liveName = live.map(TableAddress::toString).orElse(entity.table().toString());
      throw new IllegalStateException("The rebuild of " + liveName + " failed validation; the live table is"
          + " unchanged and the shadow " + shadow + " is kept for inspection:\n  " + String.join("\n  ", problems));
    }
  }
}
