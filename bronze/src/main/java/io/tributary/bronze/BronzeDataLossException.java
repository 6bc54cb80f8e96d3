package io.tributary.bronze;

/** Kafka deleted records a bronze stream had not loaded, and the source is set to fail on that (the default). */
public final class BronzeDataLossException extends RuntimeException {
  BronzeDataLossException(String message, Throwable cause) {
    super(message, cause);
  }
}
