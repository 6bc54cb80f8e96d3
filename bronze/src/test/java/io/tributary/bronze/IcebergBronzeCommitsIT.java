package io.tributary.bronze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.tributary.common.config.CatalogConfig;
import io.tributary.common.config.CatalogType;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.testing.SharedSpark;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.apache.spark.api.java.function.FilterFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.streaming.runtime.StreamExecution;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The conditional commit of an Iceberg bronze table when the stream stops in the middle of it. */
@ExtendWith(SharedSpark.class)
class IcebergBronzeCommitsIT {
  /** Opened by the batch's task once it is computing; the task waits for the second until the test is done. */
  private static final CountDownLatch COMPUTING = new CountDownLatch(1);
  private static final CountDownLatch RELEASED = new CountDownLatch(1);

  @Test
  void anAppendInterruptedByAStopEndsTheQueryAsAStopAndCommitsNothing(SparkSession spark, @TempDir Path dir)
      throws Exception {
    LakehouseSession.registerCatalog(spark, new CatalogConfig("stopping", CatalogType.HADOOP,
        dir.resolve("warehouse").toString(), dir.resolve("delta").toString(), Map.of()));
    spark.sql("CREATE TABLE stopping.bronze.orders (offset BIGINT) USING iceberg");
    IcebergBronzeCommits commits = new IcebergBronzeCommits(spark, "stopping.bronze.orders");
    Dataset<Row> slow = spark.range(0, 10).toDF("offset").filter((FilterFunction<Row>) row -> {
      COMPUTING.countDown();
      RELEASED.await();
      return true;
    });
    // What stopping a stream does to the thread running its batch.
    Thread writer = Thread.currentThread();
    Thread stopper = new Thread(() -> {
      try {
        COMPUTING.await();
        writer.interrupt();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    stopper.start();
    Throwable thrown;
    boolean stillInterrupted;
    try {
      thrown = catchThrowable(() -> commits.appendIfUnchangedSince(commits.end(), slow, Map.of()));
      stillInterrupted = Thread.interrupted();
    } finally {
      RELEASED.countDown();
      stopper.join();
    }

    assertThat(thrown).as("what the append throws").isNotNull().hasMessageContaining("interrupted")
        .hasMessageNotContaining("null");
    assertThat(StreamExecution.isInterruptionException(thrown, spark.sparkContext()))
        .as("Spark takes it for a stop, not a failure").isTrue();
    assertThat(stillInterrupted).as("the thread's interrupt is kept for the code above").isTrue();
    assertThat(spark.table("stopping.bronze.orders").count()).as("rows committed").isZero();
  }
}
