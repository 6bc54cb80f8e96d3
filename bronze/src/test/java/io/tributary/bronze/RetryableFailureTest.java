package io.tributary.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RetryableFailureTest {

  private static NullPointerException npeAt(String className, String method) {
    NullPointerException npe = new NullPointerException("Cannot invoke \"scala.collection.IterableOps.map\"");
    npe.setStackTrace(new StackTraceElement[] {
        new StackTraceElement(className, method, "KafkaMicroBatchStream.scala", 520),
        new StackTraceElement("org.apache.spark.sql.execution.streaming.runtime.ProgressContext",
            "extractSourceProgress", "ProgressReporter.scala", 384)});
    return npe;
  }

  @Test
  void theKafkaProgressMetricsBugIsRetryableWhereverItIsWrapped() {
    Throwable wrapped = new RuntimeException("query failed",
        npeAt("org.apache.spark.sql.kafka010.KafkaMicroBatchStream$", "metrics"));
    assertThat(RetryableFailure.isRetryable(wrapped)).isTrue();
    assertThat(RetryableFailure.describe(wrapped)).contains("SPARK-55271");
  }

  @Test
  void kafkaNotAnsweringIsRetryableOnTheDriverAndFromAnExecutor() {
    Throwable driver = new RuntimeException("query failed", new java.util.concurrent.ExecutionException(
        new org.apache.kafka.common.errors.TimeoutException("Timed out waiting for a node assignment")));
    assertThat(RetryableFailure.isRetryable(driver)).isTrue();
    assertThat(RetryableFailure.describe(driver)).startsWith("Kafka did not answer in time");
    Throwable executor = new IllegalStateException("Job aborted due to stage failure: Task 0 in stage 3.0 failed 1"
        + " times: java.util.concurrent.TimeoutException: Cannot fetch record for offset 812 in 120000 milliseconds");
    assertThat(RetryableFailure.isRetryable(executor)).isTrue();
    assertThat(RetryableFailure.isRetryable(new RuntimeException(
        new org.apache.kafka.common.errors.SaslAuthenticationException("Authentication failed")))).isFalse();
  }

  @Test
  void otherFailuresAreFatal() {
    assertThat(RetryableFailure.isRetryable(new RuntimeException("table is broken"))).isFalse();
    assertThat(RetryableFailure.isRetryable(npeAt("org.apache.iceberg.SnapshotProducer", "commit"))).isFalse();
    assertThat(RetryableFailure.isRetryable(
        npeAt("org.apache.spark.sql.kafka010.KafkaMicroBatchStream", "planInputPartitions"))).isFalse();
  }
}
