package io.tributary.maintenance;

import io.tributary.common.config.ConfigNames;
import java.util.Arrays;
import java.util.Optional;

/** What {@code tributary maintain --operation} runs, in the order a full run takes them. */
public enum Operation {
  PURGE_TOMBSTONES,
  REWRITE_DATA_FILES,
  REWRITE_POSITION_DELETES,
  REWRITE_MANIFESTS,
  EXPIRE_SNAPSHOTS,
  REMOVE_ORPHAN_FILES,
  /** Delta: OPTIMIZE (ZORDER BY the policy's sort-by under strategy = sort). */
  OPTIMIZE,
  /** Delta: REORG TABLE ... APPLY (PURGE), rewriting the files that carry a deletion vector. */
  PURGE_DELETION_VECTORS,
  /** Delta: VACUUM with the snapshot retention (longer where a silver stream has not read bronze yet). */
  VACUUM;

  /** As written on the command line: {@code rewrite-data-files}. */
  public String cliName() {
    return ConfigNames.of(this);
  }

  public static Optional<Operation> parse(String text) {
    return Arrays.stream(values()).filter(operation -> operation.cliName().equals(text)).findFirst();
  }
}
