package io.tributary.silver;

/**
 * A silver stream's table now goes with another checkpoint (a rebuild or a rollback switched it): the stream stops
 * without committing, and its supervisor restarts it from the checkpoint the table names.
 */
public final class StreamMovedException extends IllegalStateException {
  StreamMovedException(String message, Throwable cause) {
    super(message, cause);
  }

  /** Why a stream failure is this, for the restart log; empty otherwise. */
  static java.util.Optional<String> reason(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof StreamMovedException) {
        return java.util.Optional.of("its table was switched to another checkpoint");
      }
    }
    return java.util.Optional.empty();
  }
}
