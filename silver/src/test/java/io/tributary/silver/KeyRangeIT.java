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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TableName;
import io.tributary.common.lakehouse.TableAddress;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MERGE's join is bounded by the batch's key range ({@link KeyRange}): changes at both ends of the range still
 * find their rows (a literal off by a time zone or a quote would turn them into duplicates), a batch of keys
 * beyond every key in the table reads none of the table's data files (Iceberg's own scan report says how many; a
 * whole-number key's batch runs no MERGE at all: it is appended), batches of whole-number keys within the table's
 * files run the same generated code, and an append of new keys never doubles keys another writer added meanwhile.
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

  /** The key types whose files' statistics KeyRange reads (the others keep the batch's own bounds). */
  private static final java.util.Set<String> WHOLE_NUMBERS = java.util.Set.of("BIGINT", "TIMESTAMP", "DATE");

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
      IcebergSilverTable silver = IcebergSilverTable.load(spark, name);
      CurrentStateMerge merge = new CurrentStateMerge(silver, new Columns(StructType.fromDDL("k " + keys.type()
          + ", v STRING"), List.of("k"), SilverTables.CHANGE_NAMES), DeleteMode.TOMBSTONE);
      List<String> k = keys.keys();

      merge.apply(spark, changes(spark, keys.type(), 10, "v1", k.get(0), k.get(1), k.get(2)), null, null, Map.of());
      silver.refresh(); // as a stream's batch does before its merge
      merge.apply(spark, changes(spark, keys.type(), 20, "v2", k.get(0), k.get(2)), null, null, Map.of());
      assertThat(values(spark, name)).as(keys.type()).containsExactly("v2", "v1", "v2");

      silver.refresh(); // as a stream's batch does before its merge
      Scans.REPORTS.clear();
      merge.apply(spark, changes(spark, keys.type(), 30, "v3", k.get(3)), null, null, Map.of());
      assertThat(values(spark, name)).as(keys.type()).containsExactly("v2", "v1", "v2", "v3");
      // The first scan with a filter: KeyRange's own planning of the files' statistics has none.
      Optional<ScanReport> mergeScan = Scans.REPORTS.stream().filter(report -> report.tableName().endsWith(
          name.substring(catalog.length() + 1)) && report.filter().op() != Expression.Operation.TRUE).findFirst();
      if (WHOLE_NUMBERS.contains(keys.type())) {
        assertThat(mergeScan).as(keys.type() + ": no file can hold the key, so no MERGE scans the table").isEmpty();
      } else {
        assertThat(mergeScan).as(keys.type() + ": the MERGE's scan of the table").isPresent();
        assertThat(mergeScan.get().scanMetrics().resultDataFiles().value()).as(keys.type()).isZero();
        assertThat(mergeScan.get().scanMetrics().skippedDataFiles().value()).as(keys.type()).isPositive();
      }
    }
  }

  @SuppressWarnings("unchecked")
  @ParameterizedTest
  @EnumSource(TableFormat.class)
  void batchesWithinTheFilesKeysCompileNothingAndBatchesBeyondThemAreBoundedByTheFiles(TableFormat format,
      SparkSession spark) throws Exception {
    String catalog = "key_reuse";
    ScratchCatalog.register(spark, catalog, dir.resolve("wh"), "cache-enabled", "false");
    String columnsDdl = "k BIGINT, v STRING, " + SilverTables.CHANGE_COLUMNS;
    SilverTable table;
    String name;
    if (format == TableFormat.ICEBERG) {
      name = catalog + ".silver.t";
      spark.sql("CREATE TABLE " + name + " (" + columnsDdl + ") USING iceberg PARTITIONED BY (bucket(8, k))"
          + " TBLPROPERTIES ('format-version' = '3', 'write.merge.mode' = 'merge-on-read',"
          + " 'write.update.mode' = 'merge-on-read', 'write.delete.mode' = 'merge-on-read')");
      table = IcebergSilverTable.load(spark, name);
    } else {
      String path = dir.resolve("delta/t").toString();
      name = "delta.`" + path + "`";
      spark.sql("CREATE TABLE " + name + " (" + columnsDdl + ") USING delta"
          + " TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
      table = new DeltaSilverTable(spark, new TableAddress(new TableName("silver", "t"), TableFormat.DELTA, name,
          path));
    }
    Columns columns = new Columns(StructType.fromDDL("k BIGINT, v STRING"), List.of("k"), SilverTables.CHANGE_NAMES);
    CurrentStateMerge merge = new CurrentStateMerge(table, columns, DeleteMode.TOMBSTONE);
    // Files of negative keys wholly below every batch below, then files spanning 0 to 990.
    merge.apply(spark, ChangeRows.numbered(spark, 1, "v1", keys(-1000, 10)), null, null, batch(1));
    table.refresh(); // as a stream's batch does before its merge
    merge.apply(spark, ChangeRows.numbered(spark, 100, "v1", keys(0, 100)), null, null, batch(2));
    table.refresh();

    // Then batches of keys of one bucket (Delta: of one file, a batch this small), each range inside the one before
    // (so each batch's file spans the next batch's range): bounded by the negative keys' files alone, the same bound
    // for each, where the batches' own lowest and highest keys differ from batch to batch. Each batch inserts its
    // two outer keys and updates one (the same work, so the same plan).
    List<Long> bucket = spark.sql("SELECT id FROM range(1, 990) WHERE " + catalog + ".system.bucket(8, id) = "
        + catalog + ".system.bucket(8, 0L) ORDER BY id").as(org.apache.spark.sql.Encoders.LONG()).collectAsList();
    List<Long> inserted = bucket.stream().filter(key -> key % 10 != 0).toList();
    List<Long> updated = bucket.stream().filter(key -> key % 10 == 0).toList();
    Dataset<Row>[] batches = new Dataset[3];
    for (int i = 0; i < batches.length; i++) {
      batches[i] = ChangeRows.numbered(spark, 200 + 10 * i, "v" + (i + 2), inserted.get(i), updated.get(i),
          inserted.get(inserted.size() - 1 - i));
      assertThat(KeyRange.of(batches[i], columns, table).map(range -> range.within("t"))).as("batch " + i)
          .contains("t.`k` >= -909L");
      long compiledBefore = CodegenMetrics.METRIC_COMPILATION_TIME().getCount();
      merge.apply(spark, batches[i], null, null, batch(3 + i));
      table.refresh();
      // The first batch updates a table without deleted rows, the second one with them: the third runs their code.
      if (i == 2) {
        assertThat(CodegenMetrics.METRIC_COMPILATION_TIME().getCount() - compiledBefore)
            .as("classes compiled for a batch of other keys within the same files").isZero();
      }
    }
    assertThat(spark.sql("SELECT v, count(*) FROM " + name + " GROUP BY v ORDER BY v").collectAsList())
        .map(Row::toString).containsExactly("[v1,107]", "[v2,3]", "[v3,3]", "[v4,3]");
    assertThat(spark.sql("SELECT count(*) FROM " + name).first().getLong(0)).isEqualTo(116);

    // Beyond the table: bounded just above its files' highest key, with no upper bound (no file lies above).
    Optional<KeyRange> beyond = KeyRange.of(ChangeRows.numbered(spark, 400, "v4", 2000, 2500), columns, table);
    assertThat(beyond.map(range -> range.within("t"))).contains("t.`k` >= 991L");
  }

  /**
   * A batch whose keys no file holds is appended, not merged; when another writer added the same keys after the
   * batch looked at the files (a second run of the stream, say), the append is refused as a concurrent commit (the
   * stream restarts) instead of doubling them, and the batch planned again merges into the other writer's rows.
   */
  @ParameterizedTest
  @EnumSource(TableFormat.class)
  void aBatchOfNewKeysIsAppendedAndRefusedWhenAnotherWriterAddedThemMeanwhile(TableFormat format, SparkSession spark)
      throws Exception {
    String catalog = "new_keys";
    ScratchCatalog.register(spark, catalog, dir.resolve("wh"), "cache-enabled", "false");
    String columnsDdl = "k BIGINT, v STRING, " + SilverTables.CHANGE_COLUMNS;
    String name;
    java.util.function.Supplier<SilverTable> open;
    if (format == TableFormat.ICEBERG) {
      name = catalog + ".silver.t";
      spark.sql("CREATE TABLE " + name + " (" + columnsDdl + ") USING iceberg PARTITIONED BY (bucket(8, k))"
          + " TBLPROPERTIES ('format-version' = '3', 'write.merge.mode' = 'merge-on-read',"
          + " 'write.update.mode' = 'merge-on-read', 'write.delete.mode' = 'merge-on-read')");
      open = () -> IcebergSilverTable.load(spark, name);
    } else {
      String path = dir.resolve("delta/t").toString();
      name = "delta.`" + path + "`";
      spark.sql("CREATE TABLE " + name + " (" + columnsDdl + ") USING delta"
          + " TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
      open = () -> new DeltaSilverTable(spark, new TableAddress(new TableName("silver", "t"), TableFormat.DELTA, name,
          path));
    }
    Columns columns = new Columns(StructType.fromDDL("k BIGINT, v STRING"), List.of("k"), SilverTables.CHANGE_NAMES);
    try (MergeCount merges = new MergeCount(spark)) {
      SilverTable stream = open.get();
      new CurrentStateMerge(stream, columns, DeleteMode.TOMBSTONE).apply(spark,
          ChangeRows.numbered(spark, 10, "v1", keys(0, 10)), null, null, batch(1));
      assertThat(merges.since()).as("MERGE statements for a batch into the empty table").isZero();

      // Both writers look at the table now; the other one commits keys 100 to 120 first.
      stream.refresh();
      SilverTable other = open.get();
      new CurrentStateMerge(other, columns, DeleteMode.TOMBSTONE).apply(spark,
          ChangeRows.numbered(spark, 20, "other", 100, 110, 120), null, null,
          Map.of(CommittedBatches.STREAM_ID, "other-writer", CommittedBatches.BATCH_ID, "7"));
      CurrentStateMerge merge = new CurrentStateMerge(stream, columns, DeleteMode.TOMBSTONE);
      Dataset<Row> later = ChangeRows.numbered(spark, 30, "v2", 100, 110, 120);
      Throwable refused = org.assertj.core.api.Assertions.catchThrowable(() -> merge.apply(spark, later, null, null,
          batch(2)));
      assertThat(refused).as("the stream's append of the keys the other writer added").isNotNull();
      assertThat(io.tributary.common.lakehouse.CommitConflicts.reason(refused)).as(String.valueOf(refused))
          .isPresent();
      assertThat(merges.since()).as("MERGE statements for batches of new keys").isZero();
      assertThat(spark.sql("SELECT k, v FROM " + name + " WHERE k >= 100 ORDER BY k").collectAsList())
          .map(Row::toString).containsExactly("[100,other]", "[110,other]", "[120,other]");

      // Planned again (the stream's restart): the keys are the table's now, so the batch merges, and its newer
      // changes win.
      stream.refresh();
      merge.apply(spark, later, null, null, batch(2));
      assertThat(merges.since()).as("MERGE statements for a batch of keys the table holds").isEqualTo(1);
      assertThat(spark.sql("SELECT k, v FROM " + name + " ORDER BY k").collectAsList()).map(Row::toString)
          .containsExactly("[0,v1]", "[10,v1]", "[20,v1]", "[30,v1]", "[40,v1]", "[50,v1]", "[60,v1]", "[70,v1]",
              "[80,v1]", "[90,v1]", "[100,v2]", "[110,v2]", "[120,v2]");
    }
  }

  /** The commit of a test stream's batch {@code id}. */
  private static Map<String, String> batch(long id) {
    return Map.of(CommittedBatches.STREAM_ID, "key-range-test", CommittedBatches.BATCH_ID, String.valueOf(id));
  }

  /** {@code count} keys from {@code first}, 10 apart. */
  private static long[] keys(long first, int count) {
    long[] keys = new long[count];
    for (int i = 0; i < count; i++) {
      keys[i] = first + 10 * i;
    }
    return keys;
  }

  /** Changes of {@code keys} setting v to {@code value}, at sequence {@code seq} (one higher per key). */
  private static Dataset<Row> changes(SparkSession spark, String type, int seq, String value, String... keys) {
    StringBuilder sql = new StringBuilder();
    for (int i = 0; i < keys.length; i++) {
      sql.append(i == 0 ? "" : " UNION ALL ").append("SELECT CAST(").append(keys[i]).append(" AS ").append(type)
          .append(") AS k, '").append(value)
          .append("' AS v, 'u' AS _op, array(").append(seq + i).append("L) AS _seq, 0L AS _ts_ms, false AS"
              + " _is_deleted, 't' AS _source_topic, 0 AS _source_partition, ").append(seq + i)
          .append("L AS _source_offset, current_timestamp() AS _updated_at");
    }
    SequenceBytes.register(spark);
    return spark.sql(sql.toString()).selectExpr("*", SequenceBytes.of("_seq") + " AS " + SequenceBytes.COLUMN);
  }

  /** The v of every row, by key. */
  private static List<String> values(SparkSession spark, String table) {
    return spark.sql("SELECT v FROM " + table + " ORDER BY k").as(org.apache.spark.sql.Encoders.STRING())
        .collectAsList();
  }
}
