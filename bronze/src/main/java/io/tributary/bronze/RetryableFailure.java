package io.tributary.bronze;

import java.util.List;

/**
 * Sorts stream failures into retryable and fatal. Retryable means a restart from the checkpoint is safe and likely to
 * succeed: each batch writes only what the table lacks, so a restart never duplicates. Everything else is fatal,
 * because restarting would fail the same way (bad config, lost offsets, a broken table) and hide the cause.
 */
final class RetryableFailure {
  private RetryableFailure() {}

  static boolean isRetryable(Throwable failure) {
    return isKafkaMetricsBug(failure) || isKafkaUnavailable(failure);
  }

  static String describe(Throwable failure) {
    if (isKafkaMetricsBug(failure)) {
      return "Spark 4.1.1's Kafka source fails reporting progress for a batch replayed after a crash (SPARK-55271);"
          + " the batch itself is committed";
    }
    if (isKafkaUnavailable(failure)) {
      return "Kafka did not answer in time; the batch was not committed and is planned again";
    }
    return String.valueOf(failure.getMessage());
  }

  /**
   * Spark 4.1.1 throws a NullPointerException in {@code KafkaMicroBatchStream.metrics} when the first batch after a
   * restart is one replayed from the offset log: its latest offsets were never fetched. It happens after the batch
   * is written and committed, so restarting continues cleanly. Fixed upstream after 4.1.1 (SPARK-55271/SPARK-57438).
   */
  private static boolean isKafkaMetricsBug(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof NullPointerException) {
        for (StackTraceElement frame : cause.getStackTrace()) {
          if (frame.getClassName().startsWith("org.apache.spark.sql.kafka010.KafkaMicroBatchStream")
              && frame.getMethodName().equals("metrics")) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /**
   * What Kafka's clients and Spark's Kafka source throw when the brokers do not answer: Kafka's retriable errors
   * (timeouts, disconnects) on the driver, and an executor's "Cannot fetch record" timeout, which reaches the driver
   * only as the text of a stage failure.
   */
  private static final List<String> KAFKA_UNAVAILABLE = List.of(
      "org.apache.kafka.common.errors.TimeoutException",
      "org.apache.kafka.common.errors.DisconnectException",
      "org.apache.kafka.common.errors.NetworkException",
      "Cannot fetch record for offset");

  static boolean isKafkaUnavailable(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof org.apache.kafka.common.errors.RetriableException) {
        return true;
      }
      String message = String.valueOf(cause.getMessage());
      if (KAFKA_UNAVAILABLE.stream().anyMatch(message::contains)) {
        return true;
      }
    }
    return false;
  }
}
