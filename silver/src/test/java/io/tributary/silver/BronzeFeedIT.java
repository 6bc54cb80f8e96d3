package io.tributary.silver;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.config.TableName;
import io.tributary.common.lakehouse.TableAddress;
import io.tributary.common.testing.SharedSpark;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(SharedSpark.class)
class BronzeFeedIT {
  private static final List<long[]> BATCHES = new CopyOnWriteArrayList<>();

  @Test
  void aLargeBatchOfAnIcebergBronzeIsReadByMoreThanOneTask(SparkSession spark, @TempDir Path dir) throws Exception {
    ScratchCatalog.register(spark, "feed", dir.resolve("warehouse"));
    spark.sql("CREATE TABLE feed.silver.bronze (offset BIGINT, value BINARY) USING iceberg");
    // Two files of about 21 MB each (256 random bytes per row, which Parquet cannot compress), one append: together
    // well under Iceberg's default split of 128 MB, each over the stream's split.
    spark.range(0, 160_000).repartition(2)
        .selectExpr("id AS offset", "unhex(concat(sha2(CAST(id AS STRING), 512), sha2(CAST(-id AS STRING), 512),"
            + " sha2(CAST(id + 0.5 AS STRING), 512), sha2(CAST(id - 0.5 AS STRING), 512))) AS value")
        .writeTo("feed.silver.bronze").append();
    long smallestFile = spark.sql("SELECT min(file_size_in_bytes) FROM feed.silver.bronze.files").first().getLong(0);
    assertThat(smallestFile).as("each file is larger than the stream's split").isGreaterThan(BronzeFeed.SPLIT_BYTES);

    BATCHES.clear();
    Dataset<Row> stream = new BronzeFeed(spark, TableAddress.iceberg("feed", new TableName("silver", "bronze")))
        .stream(1_000_000, 1_000);
    stream.writeStream().trigger(Trigger.AvailableNow())
        .option("checkpointLocation", dir.resolve("checkpoint").toString())
        .foreachBatch((VoidFunction2<Dataset<Row>, Long>) (batch, id) -> {
          // One pass: the records each task read.
          List<Row> perTask = batch.groupBy(functions.spark_partition_id()).count().collectAsList();
          BATCHES.add(new long[] {perTask.stream().mapToLong(task -> task.getLong(1)).sum(), perTask.size()});
        })
        .start().awaitTermination();

    assertThat(BATCHES).hasSize(1);
    assertThat(BATCHES.get(0)[0]).as("records in the batch").isEqualTo(160_000);
    assertThat(BATCHES.get(0)[1]).as("tasks that read the batch").isEqualTo(2);
  }
}
