package io.tributary.common.lakehouse;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.config.TableName;
import io.tributary.common.testing.SharedSpark;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Delta tables get names in the session catalog; a name that stands for another table is never taken over. */
@ExtendWith(SharedSpark.class)
class DeltaTableNamesTest {

  @Test
  void aDeltaTableIsNamedOnceAndANameOfAnotherTableIsLeftAlone(SparkSession spark, @TempDir Path dir) {
    TableName table = new TableName("names_test", "people");
    String path = dir.resolve("people").toString();
    assertThat(DeltaTableNames.register(spark, table, path)).as("no table there yet").isFalse();
    assertThat(spark.catalog().tableExists(DeltaTableNames.of(table))).isFalse();

    spark.range(3).selectExpr("id", "'p' || id AS name").write().format("delta").save(path);
    assertThat(DeltaTableNames.register(spark, table, path)).isTrue();
    assertThat(spark.sql("SELECT name FROM names_test.people ORDER BY id").collectAsList().toString())
        .as("the unqualified name works as for any session-catalog table").isEqualTo("[[p0], [p1], [p2]]");
    spark.range(1).selectExpr("id + 3 AS id", "'p3' AS name").write().format("delta").mode("append").save(path);
    assertThat(DeltaTableNames.register(spark, table, path)).as("registered again: the same").isTrue();
    assertThat(spark.table(DeltaTableNames.of(table)).count()).as("the name reads the table's newest version")
        .isEqualTo(4);

    String elsewhere = dir.resolve("other").toString();
    spark.range(10).write().format("delta").save(elsewhere);
    assertThat(DeltaTableNames.register(spark, table, elsewhere)).as("the name stands for the first table").isFalse();
    assertThat(spark.table(DeltaTableNames.of(table)).count()).isEqualTo(4);
  }

  @Test
  void aNameWhoseTableWasDeletedNamesTheNewOne(SparkSession spark, @TempDir Path dir) throws Exception {
    TableName table = new TableName("names_test", "moved");
    String old = dir.resolve("old").toString();
    spark.range(2).write().format("delta").save(old);
    assertThat(DeltaTableNames.register(spark, table, old)).isTrue();
    org.apache.commons.io.FileUtils.deleteDirectory(dir.resolve("old").toFile());
    String now = dir.resolve("new").toString();
    spark.range(5).write().format("delta").save(now);
    assertThat(DeltaTableNames.register(spark, table, now)).isTrue();
    assertThat(spark.table(DeltaTableNames.of(table)).count()).isEqualTo(5);
  }
}
