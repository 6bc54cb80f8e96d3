package io.tributary.silver;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.config.CatalogConfig;
import io.tributary.common.config.CatalogType;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.SilverCheckpoints;
import io.tributary.common.testing.SharedSpark;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rebuild's switch, committed against a real Iceberg table: a commit that lands on the live table after the
 * fence (a batch the live stream had in flight) makes the content replacement fail instead of being overwritten
 * away, and the fence gives the live table the shadow's columns and partitioning while its rows stay readable.
 */
@ExtendWith(SharedSpark.class)
class LiveSwitchIT {

  @Test
  void aCommitAfterTheFenceMakesTheReplacementFailAndTheNextOneTakesTheShadow(SparkSession spark,
      @TempDir Path dir) throws Exception {
    String lake = catalog(spark, dir, "switch_guard");
    String live = lake + ".silver.orders";
    String shadow = lake + ".silver.orders__rebuild";
    spark.sql("CREATE TABLE " + live + " (id BIGINT, total INT, note STRING) USING iceberg"
        + " PARTITIONED BY (bucket(4, note))");
    spark.sql("INSERT INTO " + live + " VALUES (1, 10, 'a'), (2, 20, 'b')");
    // The rebuilt table: another key (partitioning), a widened type, a changed type, a dropped and an added column.
    spark.sql("CREATE TABLE " + shadow + " (id BIGINT, total BIGINT, status INT, region STRING) USING iceberg"
        + " PARTITIONED BY (bucket(8, id)) TBLPROPERTIES ('" + SilverCheckpoints.PROPERTY + "' = 'cp-2')");
    spark.sql("ALTER TABLE " + live + " ADD COLUMN status STRING");
    spark.sql("INSERT INTO " + shadow + " VALUES (1, 11, 1, 'eu'), (2, 21, 2, 'us'), (3, 31, 3, 'eu')");

    LiveSwitch.fence(table(spark, live), table(spark, shadow), Map.of(SilverCheckpoints.PROPERTY, "cp-2",
        SilverCheckpoints.SWITCHING, "rebuild to cp-2"));
    Table fenced = table(spark, live);
    assertThat(fenced.properties()).containsEntry(SilverCheckpoints.PROPERTY, "cp-2")
        .containsKey(SilverCheckpoints.SWITCHING);
    assertThat(spark.table(live).schema().toDDL()).isEqualTo("id BIGINT,total BIGINT,status INT,region STRING");
    assertThat(fenced.spec().fields()).singleElement().satisfies(field -> {
      assertThat(field.transform().toString()).isEqualTo("bucket[8]");
      assertThat(fenced.schema().findColumnName(field.sourceId())).isEqualTo("id");
    });
    // Readers still see the old rows, in the new columns.
    assertThat(rows(spark, live)).containsExactly("1 10 null null", "2 20 null null");

    long seen = fenced.currentSnapshot().snapshotId();
    spark.sql("INSERT INTO " + live + " VALUES (4, 40, 4, 'in flight')");
    assertThat(LiveSwitch.replaceContent(spark, shadow, live, OptionalLong.of(seen)))
        .isEqualTo(LiveSwitch.Outcome.LIVE_MOVED);
    assertThat(rows(spark, live)).as("nothing replaced").containsExactly("1 10 null null", "2 20 null null",
        "4 40 4 in flight");

    long now = table(spark, live).currentSnapshot().snapshotId();
    assertThat(LiveSwitch.replaceContent(spark, shadow, live, OptionalLong.of(now)))
        .isEqualTo(LiveSwitch.Outcome.REPLACED);
    assertThat(rows(spark, live)).containsExactly("1 11 1 eu", "2 21 2 us", "3 31 3 eu");
    assertThat(rows(spark, live + " VERSION AS OF " + now)).as("the old content by time travel")
        .containsExactly("1 10 null null", "2 20 null null", "4 40 4 in flight");

    LiveSwitch.release(table(spark, live));
    assertThat(table(spark, live).properties()).doesNotContainKey(SilverCheckpoints.SWITCHING)
        .containsEntry(SilverCheckpoints.PROPERTY, "cp-2");
  }

  private static String catalog(SparkSession spark, Path dir, String name) {
    LakehouseSession.registerCatalog(spark, new CatalogConfig(name, CatalogType.HADOOP, dir.resolve("wh").toString(),
        dir.resolve("delta").toString(), Map.of()));
    return name;
  }

  private static Table table(SparkSession spark, String name) throws Exception {
    return Spark3Util.loadIcebergTable(spark, name);
  }

  private static List<String> rows(SparkSession spark, String table) {
    return spark.sql("SELECT * FROM " + table + " ORDER BY id").collectAsList().stream()
        .map(LiveSwitchIT::text).toList();
  }

  private static String text(Row row) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < row.length(); i++) {
      text.append(i == 0 ? "" : " ").append(row.isNullAt(i) ? "null" : row.get(i).toString());
    }
    return text.toString();
  }
}
