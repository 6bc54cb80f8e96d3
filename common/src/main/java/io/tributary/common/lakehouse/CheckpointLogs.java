package io.tributary.common.lakehouse;

import java.io.IOException;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The batch logs of a Spark checkpoint ({@code offsets/N}, {@code commits/N}): one file per micro-batch, named by
 * its number. Bronze, silver and maintenance read where a stream stands from them.
 */
public final class CheckpointLogs {
  private CheckpointLogs() {}

  /** The file of the newest batch in {@code folder} (e.g. {@code <checkpoint>/commits}); empty when there is none. */
  public static Optional<FileStatus> lastBatch(FileSystem fs, Path folder) throws IOException {
    if (!fs.exists(folder)) {
      return Optional.empty();
    }
    FileStatus last = null;
    for (FileStatus file : fs.listStatus(folder)) {
      if (file.getPath().getName().matches("\\d+") && (last == null || batchOf(file) > batchOf(last))) {
        last = file;
      }
    }
    return Optional.ofNullable(last);
  }

  /** The number of the newest batch in {@code folder}; empty when there is none. */
  public static OptionalLong lastBatchNumber(FileSystem fs, Path folder) throws IOException {
    return lastBatch(fs, folder).map(file -> OptionalLong.of(batchOf(file))).orElse(OptionalLong.empty());
  }

  /** The batch number a log file is named by. */
  public static long batchOf(FileStatus file) {
    return Long.parseLong(file.getPath().getName());
  }
}
