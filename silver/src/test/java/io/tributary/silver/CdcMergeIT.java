package io.tributary.silver;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.testing.SharedSpark;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The merge itself, batch by batch: late changes never win, deletes are not resurrected, replays change nothing. */
@ExtendWith(SharedSpark.class)
class CdcMergeIT {
  private static final StructType BRONZE = StructType.fromDDL("topic STRING, partition INT, offset BIGINT,"
      + " kafka_timestamp TIMESTAMP, key BINARY, value BINARY, headers ARRAY<STRUCT<key: STRING, value: BINARY>>,"
      + " ingested_at TIMESTAMP");

  private long offset;

  private Row change(String op, long id, long lsn, String name) {
    String image = "{\"id\":" + id + ",\"name\":\"" + name + "\"}";
    String value = "{\"before\":" + (op.equals("d") ? image : "null") + ",\"after\":" + (op.equals("d") ? "null" : image)
        + ",\"source\":{\"lsn\":" + lsn + ",\"ts_ms\":1},\"op\":\"" + op + "\",\"ts_ms\":1}";
    Timestamp now = new Timestamp(System.currentTimeMillis());
    return RowFactory.create("t", 0, offset++, now, ("{\"id\":" + id + "}").getBytes(UTF_8), value.getBytes(UTF_8),
        null, now);
  }

  @Test
  void lateChangesLoseDeletesStayDeletedAndReplaysAreSkipped(SparkSession spark, @TempDir Path dir) throws Exception {
    TributaryConfig config = TributaryConfig.from(ConfigFactory.parseString("tributary {\n"
        + " catalog { name = mergetest, warehouse = \"" + dir.resolve("wh") + "\" }\n"
        + " kafka.bootstrap-servers = \"127.0.0.1:1\"\n checkpoint-location = \"" + dir.resolve("cp") + "\"\n"
        + " silver.entities.people { source = bronze.people, key = [id], table = silver.people,"
        + " schema = \"id BIGINT, name STRING\" }\n}"));
    LakehouseSession.registerCatalog(spark, config.catalog());
    SilverEntity entity = config.silver().entities().get("people");
    SilverTables.createEntityTable(spark, "mergetest", entity);
    SilverTables.createQuarantineTable(spark, "mergetest", config.silver().quarantine());
    CdcMerge merge = new CdcMerge(entity, "mergetest.silver.people", "mergetest.silver.quarantine");
    spark.sparkContext().setLocalProperty("sql.streaming.queryId", "merge-test-stream");
    try {
      merge.apply(batch(spark, change("c", 1, 100, "one-v1"), change("u", 1, 300, "one-v3"),
          change("c", 2, 110, "two-v1"), change("c", 3, 120, "three-v1"), change("d", 3, 400, "three-v1")), 0);
      assertThat(state(spark)).isEqualTo(Map.of(1L, "one-v3/live", 2L, "two-v1/live", 3L, "three-v1/deleted"));

      Dataset<Row> late = batch(spark, change("u", 1, 200, "one-v2-late"), change("u", 3, 350, "three-resurrected"),
          change("u", 2, 500, "two-v2"), change("c", 4, 50, "four-v1"));
      merge.apply(late, 1);
      Map<Long, String> afterLate = Map.of(1L, "one-v3/live", 2L, "two-v2/live", 3L, "three-v1/deleted",
          4L, "four-v1/live");
      assertThat(state(spark)).isEqualTo(afterLate);

      long snapshots = spark.table("mergetest.silver.people.snapshots").count();
      merge.apply(late, 1);
      assertThat(spark.table("mergetest.silver.people.snapshots").count()).isEqualTo(snapshots);
      assertThat(state(spark)).isEqualTo(afterLate);
    } finally {
      spark.sparkContext().setLocalProperty("sql.streaming.queryId", null);
    }
  }

  private static Dataset<Row> batch(SparkSession spark, Row... rows) {
    return spark.createDataFrame(new ArrayList<>(List.of(rows)), BRONZE);
  }

  private static Map<Long, String> state(SparkSession spark) {
    Map<Long, String> state = new TreeMap<>();
    for (Row row : spark.sql("SELECT id, name, _is_deleted FROM mergetest.silver.people").collectAsList()) {
      state.put(row.getLong(0), row.getString(1) + (row.getBoolean(2) ? "/deleted" : "/live"));
    }
    return state;
  }
}
