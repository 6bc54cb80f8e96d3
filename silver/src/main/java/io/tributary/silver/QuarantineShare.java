package io.tributary.silver;

import java.util.Locale;
import java.util.Optional;

/**
 * One reason sending a large share of a batch to quarantine. Bad records are quarantined and the stream goes on, but
 * a misconfiguration (a misspelt sequence or op field, the wrong decoder) quarantines every record of every batch
 * while the run exits 0; past the entity's {@code max-quarantine-ratio} the batch fails before it commits anything.
 */
final class QuarantineShare {
  /** Smaller batches do not fail: a handful of bad records in a quiet stream is not a pattern. */
  static final long MIN_RECORDS = 20;
  /** From this share on, the reason is logged as a warning. */
  static final double WARNING_SHARE = 0.1;

  private QuarantineShare() {}

  /** Whether {@code rejected} of {@code records} is enough to look for the most common reason. */
  static boolean worthLookingAt(long records, long rejected) {
    return rejected > 0 && rejected >= WARNING_SHARE * records;
  }

  /** The failure, when {@code count} of the batch's {@code records} for {@code reason} passes the ratio. */
  static Optional<String> failure(String entity, String configPath, long batchId, long records, String reason,
      long count, double maxRatio) {
    if (records < MIN_RECORDS || count <= maxRatio * records) {
      return Optional.empty();
    }
    return Optional.of("silver-" + entity + " batch " + batchId + ": " + describe(records, reason, count)
        + ", more than " + configPath + ".max-quarantine-ratio = " + maxRatio + " allows;"
        + " nothing was committed. This is most often the config (the entity's decoder, sequence, op-field or"
        + " event-time-field); fix it, or set max-quarantine-ratio = 1 to quarantine such records anyway");
  }

  /** "3,000 of 3,000 records (100%) go to quarantine for one reason: 'missing sequence source.lsnx'". */
  static String describe(long records, String reason, long count) {
    return String.format(Locale.ROOT, "%,d of %,d records (%.0f%%) go to quarantine for one reason: '%s'", count,
        records, 100.0 * count / records, reason);
  }
}
