package io.tributary.silver;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.config.SilverEntity.DeleteMode;
import io.tributary.common.testing.SharedSpark;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.execution.exchange.ShuffleExchangeLike;
import org.apache.spark.sql.execution.joins.ShuffledHashJoinExec;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A small batch's MERGE into an Iceberg silver table, as it runs ({@link BucketAlignedJoin}): the table's rows reach
 * the join bucket by bucket, neither shuffled nor sorted, and meet a hash table of the batch's changes; and the
 * batch's updates and inserts land as they would through any other join.
 */
@ExtendWith(SharedSpark.class)
class BucketAlignedJoinIT {
  @TempDir Path dir;

  @Test
  void aSmallBatchMeetsTheTableBucketByBucketWithoutShufflingOrSortingIt(SparkSession spark) throws Exception {
    String catalog = "bucket_join";
    ScratchCatalog.register(spark, catalog, dir.resolve("wh"), "cache-enabled", "false");
    String table = catalog + ".silver.t";
    spark.sql("CREATE TABLE " + table + " (k BIGINT, v STRING, " + SilverTables.CHANGE_COLUMNS + ") USING iceberg"
        + " PARTITIONED BY (bucket(8, k)) TBLPROPERTIES ('format-version' = '3', 'write.merge.mode' = 'merge-on-read',"
        + " 'write.update.mode' = 'merge-on-read', 'write.delete.mode' = 'merge-on-read')");
    IcebergSilverTable silver = IcebergSilverTable.load(spark, table);
    CurrentStateMerge merge = new CurrentStateMerge(silver, new Columns(StructType.fromDDL("k BIGINT, v STRING"),
        List.of("k"), SilverTables.CHANGE_NAMES), DeleteMode.TOMBSTONE);
    merge.apply(spark, ChangeRows.numbered(spark, 1, "v1", LongStream.range(0, 2000).toArray()), null, null, Map.of());
    silver.refresh(); // as a stream's batch does before its merge

    List<QueryExecution> merges;
    try (MergeCount count = new MergeCount(spark)) {
      // Keys 1990 to 2009: ten of the table's, ten new, spread over the buckets.
      merge.apply(spark, ChangeRows.numbered(spark, 5000, "v2", LongStream.range(1990, 2010).toArray()), null, null,
          Map.of());
      merges = count.executionsSince();
    }

    assertThat(spark.sql("SELECT count(*), count_if(v = 'v2'), count_if(v = 'v2' AND k < 2000) FROM " + table)
        .first().toString()).as("rows, rows the batch wrote, rows it updated").isEqualTo("[2010,20,10]");
    assertThat(merges).as("MERGE statements of the batch").hasSize(1);
    List<List<SparkPlan>> paths = new ArrayList<>();
    pathsToScansOf(merges.get(0).executedPlan(), "silver.t", new ArrayDeque<>(), paths);
    assertThat(paths).as("the table's scans in the MERGE's plan").hasSize(1);
    List<SparkPlan> aboveScan = paths.get(0);
    int join = indexOfJoin(aboveScan);
    assertThat(join).as("a shuffled hash join above the table's scan in:%n%s", merges.get(0).executedPlan())
        .isNotNegative();
    ShuffledHashJoinExec hashJoin = (ShuffledHashJoinExec) aboveScan.get(join);
    assertThat(hashJoin.buildSide().toString()).as("the side the hash table is built of").isEqualTo("BuildRight");
    assertThat(hashJoin.right().toString()).as("the changes' side").doesNotContain("BatchScan");
    for (SparkPlan between : aboveScan.subList(0, join)) {
      assertThat(between).as("between the table's scan and the join").isNotInstanceOf(ShuffleExchangeLike.class)
          .isNotInstanceOf(SortExec.class);
    }
  }

  /**
   * Adds, for every scan of {@code table} in {@code plan} (adaptive plans as they ran), the nodes above it from the
   * nearest up.
   */
  private static void pathsToScansOf(SparkPlan plan, String table, Deque<SparkPlan> above,
      List<List<SparkPlan>> paths) {
    if (plan instanceof AdaptiveSparkPlanExec adaptive) {
      pathsToScansOf(adaptive.executedPlan(), table, above, paths);
    } else if (plan instanceof QueryStageExec stage) {
      pathsToScansOf(stage.plan(), table, above, paths);
    } else if (plan instanceof BatchScanExec scan && scan.table().name().endsWith(table)) {
      paths.add(new ArrayList<>(above));
    } else {
      above.push(plan);
      for (SparkPlan child : CollectionConverters.asJava(plan.children())) {
        pathsToScansOf(child, table, above, paths);
      }
      above.pop();
    }
  }

  private static int indexOfJoin(List<SparkPlan> aboveScan) {
    for (int i = 0; i < aboveScan.size(); i++) {
      if (aboveScan.get(i) instanceof ShuffledHashJoinExec) {
        return i;
      }
    }
    return -1;
  }
}
