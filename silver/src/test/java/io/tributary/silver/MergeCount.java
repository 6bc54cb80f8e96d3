package io.tributary.silver;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.util.QueryExecutionListener;

/**
 * Counts the MERGE statements (Iceberg's and Delta's) a session runs, so that a test can tell a batch that merged
 * from one that was appended, and keeps their executions for a test that reads their plans. Registered on creation;
 * {@link #close} unregisters it.
 */
final class MergeCount implements QueryExecutionListener, AutoCloseable {
  private final SparkSession spark;
  private final List<QueryExecution> merges = new ArrayList<>();

  MergeCount(SparkSession spark) {
    this.spark = spark;
    spark.listenerManager().register(this);
  }

  @Override
  public void onSuccess(String funcName, QueryExecution qe, long durationNs) {
    String plan = qe.analyzed().toString();
    if (plan.contains("MergeRows") || plan.contains("MergeIntoCommand")) {
      synchronized (merges) {
        merges.add(qe);
      }
    }
  }

  @Override
  public void onFailure(String funcName, QueryExecution qe, Exception exception) {}

  /** The MERGEs since the last call, once the listener bus has delivered them. */
  int since() throws TimeoutException {
    return executionsSince().size();
  }

  /** The executions of the MERGEs since the last call, as they ran, once the listener bus has delivered them. */
  List<QueryExecution> executionsSince() throws TimeoutException {
    spark.sparkContext().listenerBus().waitUntilEmpty(10_000);
    synchronized (merges) {
      List<QueryExecution> since = List.copyOf(merges);
      merges.clear();
      return since;
    }
  }

  @Override
  public void close() {
    spark.listenerManager().unregister(this);
  }
}
