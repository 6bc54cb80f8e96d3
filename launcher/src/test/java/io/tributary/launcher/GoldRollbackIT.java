package io.tributary.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.Tables;
import io.tributary.common.testing.SharedSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code tributary rollback} on a gold table, in each format as a user runs it: a preview changes nothing and says
 * what would change, {@code --apply} brings the earlier content back in one commit (an Iceberg snapshot switch, a
 * Delta RESTORE) and prints the command that undoes it, and that command brings the later content back.
 */
@ExtendWith(SharedSpark.class)
class GoldRollbackIT {

  @ParameterizedTest
  @EnumSource(TableFormat.class)
  void aGoldTableIsPreviewedRolledBackAndTheRollbackUndone(TableFormat format, @TempDir Path dir) throws Exception {
    SparkSession spark = SharedSpark.session();
    String name = format.name().toLowerCase(Locale.ROOT);
    Path file = dir.resolve("lakehouse.conf");
    // A catalog name of its own: a session keeps the settings of a catalog it has used.
    Files.writeString(file, "tributary { catalog { name = rollback_" + name + ", warehouse = \""
        + dir.resolve("warehouse") + "\" }\n checkpoint-location = \"" + dir.resolve("checkpoints") + "\","
        + " kafka.bootstrap-servers = \"127.0.0.1:1\", gold.format = " + name + "\n"
        + " bronze.sources.orders { topic = orders, table = bronze.orders } }\n");
    TributaryConfig config = TributaryConfig.load(file);
    String table;
    if (format == TableFormat.DELTA) {
      table = "delta.`" + new Tables(config.catalog()).deltaPath(new TableName("gold", "daily_revenue")) + "`";
      spark.sql("CREATE TABLE " + table + " (day STRING, revenue BIGINT) USING delta");
    } else {
      LakehouseSession.registerCatalog(spark, config.catalog());
      table = "rollback_iceberg.gold.daily_revenue";
      spark.sql("CREATE TABLE " + table + " (day STRING, revenue BIGINT) USING iceberg");
    }
    spark.sql("INSERT INTO " + table + " VALUES ('2026-12-01', 10), ('2026-12-02', 20)");
    long earlier = current(spark, table, format);
    List<String> earlierRows = rows(spark, table);
    spark.sql("INSERT OVERWRITE " + table + " VALUES ('2026-12-01', 10), ('2026-12-02', 25), ('2026-12-03', 30)");
    long later = current(spark, table, format);
    List<String> laterRows = rows(spark, table);
    String unit = format == TableFormat.DELTA ? "version" : "snapshot";

    CommandRun preview = rollback(file, earlier);
    assertThat(preview.code()).as(preview.err()).isEqualTo(Tributary.OK);
    assertThat(preview.out()).contains("rows that would disappear: 2; rows that would come back: 1",
        "rollback: nothing changed (a preview). Add --apply to roll back to " + unit + " " + earlier + ".");
    assertThat(rows(spark, table)).as("a preview changes nothing").isEqualTo(laterRows);

    CommandRun applied = rollback(file, earlier, "--apply");
    assertThat(applied.code()).as(applied.err()).isEqualTo(Tributary.OK);
    assertThat(rows(spark, table)).isEqualTo(earlierRows);
    String undo = "tributary rollback --config FILE --table gold.daily_revenue --snapshot " + later + " --apply";
    assertThat(applied.out()).contains("rollback: rolled back to " + unit + " " + earlier + ". To undo: " + undo);

    CommandRun undone = rollback(file, later, "--apply");
    assertThat(undone.code()).as(undone.err()).isEqualTo(Tributary.OK);
    assertThat(rows(spark, table)).isEqualTo(laterRows);

    CommandRun missing = rollback(file, 999_999);
    assertThat(missing.code()).isEqualTo(Tributary.USAGE);
    assertThat(missing.err().strip()).contains("has no " + unit + " 999999").doesNotContain("\tat ");
  }

  private static CommandRun rollback(Path config, long target, String... more) {
    List<String> args = new java.util.ArrayList<>(List.of("rollback", "--config", config.toString(), "--table",
        "gold.daily_revenue", "--snapshot", String.valueOf(target)));
    args.addAll(List.of(more));
    return CommandRun.of(args.toArray(String[]::new));
  }

  private static long current(SparkSession spark, String table, TableFormat format) {
    return format == TableFormat.DELTA
        ? spark.sql("DESCRIBE HISTORY " + table).selectExpr("max(version)").first().getLong(0)
        : spark.sql("SELECT snapshot_id FROM " + table + ".snapshots ORDER BY committed_at DESC LIMIT 1").first()
            .getLong(0);
  }

  private static List<String> rows(SparkSession spark, String table) {
    return spark.sql("SELECT * FROM " + table).toJSON().collectAsList().stream().sorted().toList();
  }
}
