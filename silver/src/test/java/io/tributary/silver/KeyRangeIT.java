package io.tributary.silver;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.config.SilverEntity.DeleteMode;
import io.tributary.common.testing.SharedSpark;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.iceberg.metrics.MetricsReport;
import org.apache.iceberg.metrics.MetricsReporter;
import org.apache.iceberg.metrics.ScanReport;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MERGE's join is bounded by the batch's key range ({@link KeyRange}): changes at both ends of the range still
 * find their rows (a literal off by a time zone or a quote would turn them into duplicates), and a batch of keys
 * beyond every key in the table reads none of the table's data files (Iceberg's own scan report says how many).
 */
@ExtendWith(SharedSpark.class)
class KeyRangeIT {
  /** Collects Iceberg's scan reports of the test catalog. */
  public static final class Scans implements MetricsReporter {
    static final List<ScanReport> REPORTS = new CopyOnWriteArrayList<>();

    @Override
    public void report(MetricsReport report) {
      if (report instanceof ScanReport scan) {
        REPORTS.add(scan);
      }
    }
  }

  /** A key type and four keys in ascending order, as SQL literals. */
  private record Case(String type, List<String> keys) {}

  private static final List<Case> CASES = List.of(
      new Case("BIGINT", List.of("-5", "7", "1000", "1001")),
      new Case("STRING", List.of("'a''b'", "'o''brien'", "'z\\\\x'", "'zz'")),
      new Case("TIMESTAMP", List.of("TIMESTAMP '2024-03-31 01:30:00'", "TIMESTAMP '2024-06-01 00:00:00'",
          "TIMESTAMP '2024-10-27 02:30:00.123456'", "TIMESTAMP '2025-01-01 00:00:00'")),
      new Case("DECIMAL(10,2)", List.of("-0.01", "0.00", "12345.67", "12345.68")),
      new Case("DATE", List.of("DATE '1969-12-31'", "DATE '1970-01-01'", "DATE '2026-12-03'", "DATE '2026-12-04'")));

  @TempDir Path dir;

  @Test
  void changesAtTheEndsOfTheRangeFindTheirRowsAndNewKeysBeyondTheTableReadNoFile(SparkSession spark)
      throws Exception {
    String catalog = "key_range";
    ScratchCatalog.register(spark, catalog, dir.resolve("wh"), "cache-enabled", "false", "metrics-reporter-impl",
        Scans.class.getName());
    int table = 0;
    for (Case keys : CASES) {
      String name = catalog + ".silver.t" + table++;
      spark.sql("CREATE TABLE " + name + " (k " + keys.type() + ", v STRING, " + SilverTables.CHANGE_COLUMNS
          + ") USING iceberg PARTITIONED BY (bucket(8, k)) TBLPROPERTIES ('format-version' = '2',"
          + " 'write.merge.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read',"
          + " 'write.delete.mode' = 'merge-on-read')");
      CurrentStateMerge merge = new CurrentStateMerge(IcebergSilverTable.load(spark, name), new Columns(StructType.fromDDL("k " + keys.type()
          + ", v STRING"), List.of("k"), SilverTables.CHANGE_NAMES), DeleteMode.TOMBSTONE);
      List<String> k = keys.keys();

      merge.apply(spark, changes(spark, keys.type(), 10, "v1", k.get(0), k.get(1), k.get(2)), null, null, Map.of());
      merge.apply(spark, changes(spark, keys.type(), 20, "v2", k.get(0), k.get(2)), null, null, Map.of());
      assertThat(values(spark, name)).as(keys.type()).containsExactly("v2", "v1", "v2");

      Scans.REPORTS.clear();
      merge.apply(spark, changes(spark, keys.type(), 30, "v3", k.get(3)), null, null, Map.of());
      assertThat(values(spark, name)).as(keys.type()).containsExactly("v2", "v1", "v2", "v3");
      Optional<ScanReport> mergeScan = Scans.REPORTS.stream().filter(report -> report.tableName().endsWith(
          name.substring(catalog.length() + 1))).findFirst();
      assertThat(mergeScan).as(keys.type() + ": the MERGE's scan of the table").isPresent();
      assertThat(mergeScan.get().scanMetrics().resultDataFiles().value()).as(keys.type()).isZero();
      assertThat(mergeScan.get().scanMetrics().skippedDataFiles().value()).as(keys.type()).isPositive();
    }
  }

  /** Changes of {@code keys} setting v to {@code value}, at sequence {@code seq} (one higher per key). */
  private static Dataset<Row> changes(SparkSession spark, String type, int seq, String value, String... keys) {
    StringBuilder sql = new StringBuilder();
    for (int i = 0; i < keys.length; i++) {
      sql.append(i == 0 ? "" : " UNION ALL ").append("SELECT CAST(").append(keys[i]).append(" AS ").append(type).append(") AS k, '").append(value)
          .append("' AS v, 'u' AS _op, array(").append(seq + i).append("L) AS _seq, 0L AS _ts_ms, false AS"
              + " _is_deleted, 't' AS _source_topic, 0 AS _source_partition, ").append(seq + i)
          .append("L AS _source_offset, current_timestamp() AS _updated_at");
    }
    return spark.sql(sql.toString()).selectExpr("*", SequenceBytes.of("_seq") + " AS " + SequenceBytes.COLUMN);
  }

  /** The v of every row, by key. */
  private static List<String> values(SparkSession spark, String table) {
    return spark.sql("SELECT v FROM " + table + " ORDER BY k").as(org.apache.spark.sql.Encoders.STRING())
        .collectAsList();
  }
}
