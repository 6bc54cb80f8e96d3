package io.tributary.common.lakehouse;

import io.tributary.common.config.LocalFolders;
import io.tributary.common.config.TributaryConfig;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A batch that failed because a file system is full. Spark reports it deep inside a task failure (Hadoop's
 * {@code FSError: java.io.IOException: No space left on device}, without the path); this names the config's local
 * folders with their free space, in one line.
 */
public final class StorageFull {
  private static final String SIGN = "No space left on device";
  private static final double MIB = 1024 * 1024;

  /** What a stream's failed batch left behind, and what to do. */
  public static final String BATCH = "The batch was not committed and nothing was skipped: free space and run again,"
      + " and the batch is written then.";
  /** What a failed gold run left behind, and what to do. */
  public static final String GOLD_RUN = "Models committed before the failing one stay committed; the failing model"
      + " changed nothing (a model commits whole or not at all): free space and run the same command again.";
  /** What a failed maintenance run left behind, and what to do. */
  public static final String MAINTENANCE = "The failing operation committed nothing and the table is as it was:"
      + " free space and run maintain again.";

  private StorageFull() {}

  /** A stream's failure in one line, if a full file system caused it. */
  public static Optional<DependencyUnavailableException> explain(String stream, Throwable failure,
      TributaryConfig config) {
    return explain(stream, failure, config, BATCH);
  }

  /**
   * The failure in one line, if a full file system caused it.
   *
   * @param job what failed, first on the line
   * @param consequence what the failure left behind and what to do, last on the line
   */
  public static Optional<DependencyUnavailableException> explain(String job, Throwable failure,
      TributaryConfig config, String consequence) {
    if (!causedBy(failure)) {
      return Optional.empty();
    }
    List<String> folders = new ArrayList<>();
    LocalFolders.of(config).forEach((key, path) -> folders.add(key + " " + path + ": " + free(path)));
    return Optional.of(new DependencyUnavailableException(job + ": no space left on device ("
        + (folders.isEmpty() ? "the lakehouse is not on the local disk; see the storage's own limits"
            : String.join("; ", folders))
        + "). " + consequence, failure));
  }

  static boolean causedBy(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause.getMessage() != null && cause.getMessage().contains(SIGN)) {
        return true;
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return false;
  }

  /** The free space of the file system the folder is (or would be) on. */
  private static String free(Path folder) {
    try {
      FileStore store = Files.getFileStore(LocalFolders.nearestExisting(folder));
      return String.format("%,.1f MiB free of %,.0f MiB", store.getUsableSpace() / MIB, store.getTotalSpace() / MIB);
    } catch (IOException e) {
      return "free space unknown (" + e.getMessage() + ")";
    }
  }
}
