package io.tributary.gold;

import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Snapshot;

/**
 * What a gold commit was built from, kept in its Iceberg snapshot summary (Delta: its commit's user metadata): the model and the SHA-256 of its file,
 * the data interval, and the snapshot of every table it read. With these a run can be audited, and reproduced by
 * reading the inputs {@code VERSION AS OF} the recorded ids.
 *
 * @param model the model name
 * @param version SHA-256 of the model file
 * @param interval the run's interval, e.g. {@code 2026-11-01..2026-11-05}
 * @param inputs {@code namespace.table@snapshot} for each table read, comma separated
 * @param runId one id shared by every model of a run
 */
public record Lineage(String model, String version, String interval, String inputs, String runId) {
  static final String MODEL = "tributary.gold.model";
  static final String VERSION = "tributary.gold.model-sha256";
  static final String INTERVAL = "tributary.gold.interval";
  static final String INPUTS = "tributary.gold.inputs";
  static final String RUN_ID = "tributary.gold.run-id";

  Map<String, String> summary() {
    return Map.of(MODEL, model, VERSION, version, INTERVAL, interval, INPUTS, inputs, RUN_ID, runId);
  }

  /** The lineage of a gold commit, or empty for a snapshot Tributary's gold runner did not write. */
  public static Optional<Lineage> of(Snapshot snapshot) {
    return of(snapshot.summary());
  }

  /** The lineage of a Delta commit from its user metadata, or empty for a commit of another writer. */
  public static Optional<Lineage> of(String userMetadata) {
    return of(io.tributary.common.lakehouse.DeltaCommitMetadata.parse(userMetadata, MODEL));
  }

  private static Optional<Lineage> of(Map<String, String> summary) {
    if (!summary.containsKey(MODEL)) {
      return Optional.empty();
    }
    return Optional.of(new Lineage(summary.get(MODEL), summary.get(VERSION), summary.get(INTERVAL),
        summary.get(INPUTS), summary.get(RUN_ID)));
  }
}
