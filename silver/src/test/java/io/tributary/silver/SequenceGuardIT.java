package io.tributary.silver;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.config.SilverEntity.DeleteMode;
import io.tributary.common.testing.SharedSpark;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The out-of-order guard on {@link SequenceBytes}: the bytes order every pair of sequences as Spark orders the arrays
 * (nulls, negative numbers, the extremes, prefixes); a MERGE into a table that keeps them reads no array from the
 * table (so Iceberg can read it vectorized); and a table of an earlier Tributary, without the column, is still merged
 * with the guard on {@code _seq}.
 */
@ExtendWith(SharedSpark.class)
class SequenceGuardIT {
  private static final List<String> SEQUENCES = List.of("NULL", "array()", "array(NULL)", "array(NULL, 0L)",
      "array(-9223372036854775807L - 1L)", "array(-1L)", "array(0L)", "array(0L, NULL)", "array(0L, -1L)",
      "array(0L, 0L)", "array(0L, 1L)", "array(1L)", "array(255L)", "array(256L)", "array(9223372036854775807L)",
      "array(9223372036854775807L, 0L)");

  @TempDir Path dir;

  @Test
  void theBytesOrderEveryPairOfSequencesAsSparkOrdersTheArrays(SparkSession spark) {
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < SEQUENCES.size(); i++) {
      rows.add("SELECT " + i + " AS id, CAST(" + SEQUENCES.get(i) + " AS ARRAY<BIGINT>) AS seq");
    }
    SequenceBytes.register(spark);
    spark.sql(String.join(" UNION ALL ", rows)).selectExpr("id", "seq", SequenceBytes.of("seq") + " AS bytes")
        .createOrReplaceTempView("sequences");
    // The guard compares structs, in which a null field orders first: so do both sides here.
    Dataset<Row> pairs = spark.sql("SELECT a.id AS a, b.id AS b,"
        + " signum(CASE WHEN named_struct('s', a.seq) < named_struct('s', b.seq) THEN -1"
        + " WHEN named_struct('s', a.seq) > named_struct('s', b.seq) THEN 1 ELSE 0 END) AS by_array,"
        + " signum(CASE WHEN named_struct('s', a.bytes) < named_struct('s', b.bytes) THEN -1"
        + " WHEN named_struct('s', a.bytes) > named_struct('s', b.bytes) THEN 1 ELSE 0 END) AS by_bytes"
        + " FROM sequences a CROSS JOIN sequences b");
    List<Row> all = pairs.collectAsList();
    assertThat(all).hasSize(SEQUENCES.size() * SEQUENCES.size());
    Map<Double, Integer> outcomes = new TreeMap<>();
    List<String> wrong = new ArrayList<>();
    for (Row pair : all) {
      outcomes.merge(pair.getDouble(2), 1, Integer::sum);
      if (pair.getDouble(2) != pair.getDouble(3)) {
        wrong.add(SEQUENCES.get(pair.getInt(0)) + " against " + SEQUENCES.get(pair.getInt(1)) + ": arrays "
            + pair.getDouble(2) + ", bytes " + pair.getDouble(3));
      }
    }
    assertThat(wrong).isEmpty();
    // Every pair of distinct sequences is ordered one way or the other; only a sequence equals itself.
    assertThat(outcomes).containsEntry(0.0, SEQUENCES.size());
    spark.catalog().dropTempView("sequences");
  }

  /**
   * Tables hold the bytes earlier releases computed in SQL; a guard comparing them with the function's must find them
   * equal for the same sequence, or a replay would apply again and an older change could win.
   */
  @Test
  void theFunctionWritesTheBytesEarlierReleasesWroteInSql(SparkSession spark) {
    SequenceBytes.register(spark);
    String number = "unhex(lpad(hex(element ^ shiftleft(1L, 63)), 16, '0'))";
    String earlier = "CASE WHEN seq IS NULL THEN X'' ELSE concat(aggregate(seq, X'01', (bytes, element) ->"
        + " concat(bytes, CASE WHEN element IS NULL THEN X'01' ELSE concat(X'02', " + number + ") END)), X'00') END";
    List<String> rows = new ArrayList<>();
    for (String sequence : SEQUENCES) {
      rows.add("SELECT '" + sequence + "' AS text, CAST(" + sequence + " AS ARRAY<BIGINT>) AS seq");
    }
    List<Row> compared = spark.sql(String.join(" UNION ALL ", rows))
        .selectExpr("text", "hex(" + earlier + ")", "hex(" + SequenceBytes.of("seq") + ")").collectAsList();
    assertThat(compared).hasSize(SEQUENCES.size());
    for (Row row : compared) {
      assertThat(row.getString(2)).as(row.getString(0)).isEqualTo(row.getString(1));
    }
    assertThat(compared.get(SEQUENCES.indexOf("array(-1L)")).getString(2)).isEqualTo("01027FFFFFFFFFFFFFFF00");
  }

  @Test
  void theGuardReadsNoArrayFromATableWithTheBytesAndAnEarlierTableKeepsItsGuardOnSeq(SparkSession spark)
      throws Exception {
    String catalog = "sequence_guard";
    ScratchCatalog.register(spark, catalog, dir.resolve("wh"));
    String earlierColumns = SilverTables.CHANGE_COLUMNS.replace(" " + SequenceBytes.COLUMN + " BINARY,", "");
    assertThat(earlierColumns).doesNotContain(SequenceBytes.COLUMN);
    for (String changeColumns : List.of(SilverTables.CHANGE_COLUMNS, earlierColumns)) {
      boolean withBytes = changeColumns.contains(SequenceBytes.COLUMN);
      String table = catalog + ".silver." + (withBytes ? "now" : "earlier");
      spark.sql("CREATE TABLE " + table + " (k BIGINT, v STRING, " + changeColumns + ") USING iceberg"
          + " PARTITIONED BY (bucket(4, k)) TBLPROPERTIES ('format-version' = '3',"
          + " 'write.merge.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read',"
          + " 'write.delete.mode' = 'merge-on-read')");
      List<String> change = List.of(StructType.fromDDL(changeColumns).fieldNames());
      Columns columns = new Columns(StructType.fromDDL("k BIGINT, v STRING"), List.of("k"), change);
      CurrentStateMerge merge = new CurrentStateMerge(IcebergSilverTable.load(spark, table), columns, DeleteMode.TOMBSTONE);

      // Sequences whose order differs from their numbers' signed order and from the Kafka offsets: key 1 at
      // [5, -1] then [5, 0]; key 2 at [-3] then [-4] (older, out of order); key 3 at [7] then [7, NULL] (longer).
      merge.apply(spark, changes(spark, "(1L, 'a1', array(5L, -1L), 10L), (2L, 'b1', array(-3L), 11L),"
          + " (3L, 'c1', array(7L), 12L)"), null, null, Map.of());
      merge.apply(spark, changes(spark, "(1L, 'a2', array(5L, 0L), 1L), (2L, 'b2', array(-4L), 2L),"
          + " (3L, 'c2', array(7L, NULL), 3L)"), null, null, Map.of());
      assertThat(spark.sql("SELECT v FROM " + table + " ORDER BY k").as(Encoders.STRING()).collectAsList())
          .as(table).containsExactly("a2", "b1", "c2");
      // A replay of the first batch changes nothing.
      merge.apply(spark, changes(spark, "(1L, 'a1', array(5L, -1L), 10L), (2L, 'b1', array(-3L), 11L),"
          + " (3L, 'c1', array(7L), 12L)"), null, null, Map.of());
      assertThat(spark.sql("SELECT v FROM " + table + " ORDER BY k").as(Encoders.STRING()).collectAsList())
          .as(table).containsExactly("a2", "b1", "c2");

      changes(spark, "(9L, 'x', array(1L), 1L)").createOrReplaceTempView("one_change");
      String plan = spark.sql("EXPLAIN " + merge.mergeStatement("one_change", Optional.empty()))
          .as(Encoders.STRING()).first();
      String tableScan = plan.lines().filter(line -> line.contains("BatchScan " + table)).findFirst()
          .orElseThrow(() -> new AssertionError("no scan of " + table + " in\n" + plan));
      if (withBytes) {
        assertThat(tableScan).as("the MERGE's scan of the table").contains(SequenceBytes.COLUMN + "#")
            .doesNotContain("_seq#");
      } else {
        assertThat(tableScan).as("the MERGE's scan of the table").contains("_seq#");
      }
      spark.catalog().dropTempView("one_change");
    }
  }

  /** Changes from SQL rows of (key, value, sequence, Kafka offset), as the merge gets them from a decoded batch. */
  private static Dataset<Row> changes(SparkSession spark, String rows) {
    SequenceBytes.register(spark);
    return spark.sql("SELECT col1 AS k, col2 AS v, 'u' AS _op, CAST(col3 AS ARRAY<BIGINT>) AS _seq, 0L AS _ts_ms,"
        + " false AS _is_deleted, 't' AS _source_topic, 0 AS _source_partition, col4 AS _source_offset,"
        + " current_timestamp() AS _updated_at FROM VALUES " + rows)
        .selectExpr("*", SequenceBytes.of("_seq") + " AS " + SequenceBytes.COLUMN);
  }
}
