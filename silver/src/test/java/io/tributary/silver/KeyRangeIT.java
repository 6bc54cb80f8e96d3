package io.tributary.silver;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.config.SilverEntity.DeleteMode;
import io.tributary.common.testing.SharedSpark;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.metrics.MetricsReport;
import org.apache.spark.metrics.source.CodegenMetrics;
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
 * find their rows (a literal off by a time zone or a quote would turn them into duplicates), a batch of keys
 * beyond every key in the table reads none of the table's data files (Iceberg's own scan report says how many), and
 * batches of whole-number keys within the table's files run the same generated code.
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
      // The first scan whose filter is not KeyRange's own question (either side of the batch's keys).
      Optional<ScanReport> mergeScan = Scans.REPORTS.stream().filter(report -> report.tableName().endsWith(
          name.substring(catalog.length() + 1)) && report.filter().op() != Expression.Operation.OR).findFirst();
      assertThat(mergeScan).as(keys.type() + ": the MERGE's scan of the table").isPresent();
      assertThat(mergeScan.get().scanMetrics().resultDataFiles().value()).as(keys.type()).isZero();
      assertThat(mergeScan.get().scanMetrics().skippedDataFiles().value()).as(keys.type()).isPositive();
    }
  }

  @Test
  void batchesWithinTheFilesKeysCompileNothingAndBatchesBeyondThemAreBoundedByTheFiles(SparkSession spark)
      throws Exception {
    String catalog = "key_reuse";
    ScratchCatalog.register(spark, catalog, dir.resolve("wh"), "cache-enabled", "false");
    String name = catalog + ".silver.t";
    spark.sql("CREATE TABLE " + name + " (k BIGINT, v STRING, " + SilverTables.CHANGE_COLUMNS
        + ") USING iceberg PARTITIONED BY (bucket(8, k)) TBLPROPERTIES ('format-version' = '3',"
        + " 'write.merge.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read',"
        + " 'write.delete.mode' = 'merge-on-read')");
    IcebergSilverTable table = IcebergSilverTable.load(spark, name);
    Columns columns = new Columns(StructType.fromDDL("k BIGINT, v STRING"), List.of("k"), SilverTables.CHANGE_NAMES);
    CurrentStateMerge merge = new CurrentStateMerge(table, columns, DeleteMode.TOMBSTONE);
    // Files of negative keys wholly below every batch below, then files spanning 0 to 990.
    merge.apply(spark, numbered(spark, 1, "v1", keys(-1000, 10)), null, null, Map.of());
    merge.apply(spark, numbered(spark, 100, "v1", keys(0, 100)), null, null, Map.of());

    // Then batches of keys of one bucket, each range inside the one before (so each batch's file spans the next
    // batch's range): bounded by the negative keys' files alone, the same bound for each, where the batches' own
    // lowest and highest keys differ from batch to batch.
    long[] bucket = spark.sql("SELECT id FROM range(1, 990) WHERE " + catalog + ".system.bucket(8, id) = " + catalog
        + ".system.bucket(8, 0L) ORDER BY id").collectAsList().stream().mapToLong(row -> row.getLong(0)).toArray();
    int middle = bucket.length / 2;
    Dataset<Row> second = numbered(spark, 200, "v2", bucket[0], bucket[middle], bucket[bucket.length - 1]);
    assertThat(KeyRange.of(second, columns, table).map(range -> range.within("t"))).contains("t.`k` >= -909L");
    merge.apply(spark, second, null, null, Map.of());
    // Once more with the deletion vectors the second batch may write, which the table's scan reads from then on.
    merge.apply(spark, numbered(spark, 250, "v3", bucket[1], bucket[middle + 1], bucket[bucket.length - 2]), null,
        null, Map.of());
    Dataset<Row> fourth = numbered(spark, 300, "v4", bucket[2], bucket[middle + 2], bucket[bucket.length - 3]);
    assertThat(KeyRange.of(fourth, columns, table).map(range -> range.within("t"))).contains("t.`k` >= -909L");
    long compiledBefore = CodegenMetrics.METRIC_COMPILATION_TIME().getCount();
    merge.apply(spark, fourth, null, null, Map.of());
    assertThat(CodegenMetrics.METRIC_COMPILATION_TIME().getCount() - compiledBefore)
        .as("classes compiled for a batch of other keys within the same files").isZero();
    assertThat(spark.sql("SELECT v, count(*) FROM " + name + " GROUP BY v ORDER BY v").collectAsList())
        .map(Row::toString).containsExactly("[v1," + (110 - java.util.Arrays.stream(new long[] {bucket[0],
            bucket[middle], bucket[bucket.length - 1], bucket[1], bucket[middle + 1], bucket[bucket.length - 2],
            bucket[2], bucket[middle + 2], bucket[bucket.length - 3]}).filter(key -> key % 10 == 0).count()) + "]",
            "[v2,3]", "[v3,3]", "[v4,3]");

    // Beyond the table: bounded just above its files' highest key, with no upper bound (no file lies above).
    Optional<KeyRange> beyond = KeyRange.of(numbered(spark, 400, "v4", 2000, 2500), columns, table);
    assertThat(beyond.map(range -> range.within("t"))).contains("t.`k` >= 991L");
  }

  /** {@code count} keys from {@code first}, 10 apart. */
  private static long[] keys(long first, int count) {
    long[] keys = new long[count];
    for (int i = 0; i < count; i++) {
      keys[i] = first + 10 * i;
    }
    return keys;
  }

  /**
   * Changes of BIGINT {@code keys} as {@link #changes} makes them, held as rows rather than written as literals: a
   * stream's batches are data, and literals of other values would be other code on the changes' side.
   */
  private static Dataset<Row> numbered(SparkSession spark, int seq, String value, long... keys) {
    List<Row> rows = new java.util.ArrayList<>();
    for (int i = 0; i < keys.length; i++) {
      rows.add(org.apache.spark.sql.RowFactory.create(keys[i], value, (long) seq + i));
    }
    return spark.createDataFrame(rows, StructType.fromDDL("k BIGINT, v STRING, seq BIGINT"))
        .selectExpr("k", "v", "'u' AS _op", "array(seq) AS _seq", "0L AS _ts_ms", "false AS _is_deleted",
            "'t' AS _source_topic", "0 AS _source_partition", "seq AS _source_offset",
            "current_timestamp() AS _updated_at")
        .selectExpr("*", SequenceBytes.of("_seq") + " AS " + SequenceBytes.COLUMN);
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
