package io.tributary.bronze;

/**
 * Sorts stream failures into retryable and fatal. Retryable means a restart from the checkpoint is safe and likely to
 * succeed: the sinks are idempotent per batch, so a restart never duplicates. Everything else is fatal, because
 * restarting would fail the same way (bad config, lost offsets, a broken table) and hide the cause.
 */
final class RetryableFailure {
  private RetryableFailure() {}

  static boolean isRetryable(Throwable failure) {
    return isKafkaMetricsBug(failure);
  }

  static String describe(Throwable failure) {
    return isKafkaMetricsBug(failure)
        ? "Spark 4.1.1's Kafka source fails reporting progress for a batch replayed after a crash (SPARK-55271);"
            + " the batch itself is committed"
        : String.valueOf(failure.getMessage());
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
}
