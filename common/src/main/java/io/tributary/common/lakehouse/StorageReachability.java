package io.tributary.common.lakehouse;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Optional;

/**
 * Whether a failure means the lakehouse's storage or catalog service did not answer (an HDFS name node, an object
 * store or a catalog server that is down or unknown), as opposed to a problem with the data: the first is for the
 * operator to fix and is worth a code of its own.
 */
public final class StorageReachability {
  private StorageReachability() {}

  /** The network failure at the root of {@code failure}, in words, if there is one. */
  public static Optional<String> unreachable(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof ConnectException || cause instanceof NoRouteToHostException
          || cause instanceof SocketTimeoutException || cause instanceof UnknownHostException) {
        return Optional.of(cause.getClass().getSimpleName() + ": " + cause.getMessage());
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return Optional.empty();
  }
}
