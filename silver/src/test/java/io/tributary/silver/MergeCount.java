package io.tributary.silver;

import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.util.QueryExecutionListener;

/**
 * Counts the MERGE statements (Iceberg's and Delta's) a session runs, so that a test can tell a batch that merged
 * from one that was appended. Registered on creation; {@link #close} unregisters it.
 */
final class MergeCount implements QueryExecutionListener, AutoCloseable {
  private final SparkSession spark;
  private final AtomicInteger count = new AtomicInteger();

  MergeCount(SparkSession spark) {
    this.spark = spark;
    spark.listenerManager().register(this);
  }

  @Override
  public void onSuccess(String funcName, QueryExecution qe, long durationNs) {
    String plan = qe.analyzed().toString();
    if (plan.contains("MergeRows") || plan.contains("MergeIntoCommand")) {
      count.incrementAndGet();
    }
  }

  @Override
  public void onFailure(String funcName, QueryExecution qe, Exception exception) {}

  /** The MERGEs since the last call, once the listener bus has delivered them. */
  int since() throws TimeoutException {
    spark.sparkContext().listenerBus().waitUntilEmpty(10_000);
    return count.getAndSet(0);
  }

  @Override
  public void close() {
    spark.listenerManager().unregister(this);
  }
}
