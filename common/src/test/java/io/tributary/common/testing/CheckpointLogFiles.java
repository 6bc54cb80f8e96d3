package io.tributary.common.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The batch log files of a Spark checkpoint on the local disk ({@code offsets/N}, {@code commits/N}), for tests that
 * put a checkpoint out of step with its table the way a crash, a lost file or a restored backup would.
 */
public final class CheckpointLogFiles {
  private CheckpointLogFiles() {}

  /** The newest batch number in a log folder (e.g. {@code <checkpoint>/commits}), -1 when there is none. */
  public static long lastBatch(Path folder) throws IOException {
    try (Stream<Path> files = Files.list(folder)) {
      return files.map(file -> file.getFileName().toString()).filter(name -> name.matches("\\d+"))
          .mapToLong(Long::parseLong).max().orElse(-1);
    }
  }

  /** Deletes a batch log file with the checksum the local file system keeps beside it (as a restored backup lacks it). */
  public static void delete(Path file) throws IOException {
    Files.delete(file);
    Files.deleteIfExists(file.resolveSibling("." + file.getFileName() + ".crc"));
  }
}
