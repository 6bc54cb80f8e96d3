package io.tributary.maintenance;

import io.tributary.common.config.MaintenanceConfig.Layer;
import java.util.List;

/** Tables whose current snapshot references files that are gone: reported after every table's line, exit code 1. */
public final class DamagedTablesException extends RuntimeException {
  private DamagedTablesException(String message) {
    super(message);
  }

  static void throwIfAny(List<String> damaged) {
    if (!damaged.isEmpty()) {
      throw new DamagedTablesException(damaged.size() + " table" + (damaged.size() == 1 ? "" : "s")
          + " with missing files (see the DAMAGED lines above): " + String.join(", ", damaged)
          + "; nothing was done to " + (damaged.size() == 1 ? "it" : "them"));
    }
  }

  /** How a table of this layer gets its files back. */
  static String nextStep(Layer layer) {
    return switch (layer) {
      case BRONZE -> "nothing is done to a damaged table; restore the files, or roll the table back to a snapshot"
          + " that has them and load the records again with 'tributary reingest'";
      case SILVER, GOLD -> "nothing is done to a damaged table; restore the files, or rebuild it from bronze with"
          + " 'tributary rebuild --table <namespace.table>'";
    };
  }
}
