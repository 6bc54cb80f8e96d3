package io.tributary.common.lakehouse;

/**
 * A service the run needs (Kafka, the catalog) did not answer, or refused the credentials: the run fails with one
 * line naming the address and the next step, without quarantining or skipping anything.
 */
public final class DependencyUnavailableException extends RuntimeException {
  public DependencyUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
