package io.tributary.common.lakehouse;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Where one stream stands, read from its checkpoint and its source (for {@code tributary status}).
 *
 * @param name e.g. {@code bronze-orders}
 * @param lastBatch the last committed micro-batch, empty before the first
 * @param lastCommit when it was committed
 * @param behind what the source holds past it: records in Kafka (bronze), records in bronze snapshots (silver)
 * @param detail what {@code behind} counts, for the report
 */
public record StreamState(String name, OptionalLong lastBatch, Optional<Instant> lastCommit, long behind,
    String detail) {

  /** Behind, and no batch committed within {@code maxIdle} (or never): the stream is down or stuck. */
  public boolean stalled(Instant now, Duration maxIdle) {
    return behind > 0 && lastCommit.map(at -> at.plus(maxIdle).isBefore(now)).orElse(true);
  }

  public String describe(Instant now, Duration maxIdle) {
    String committed = lastBatch.isEmpty() ? "no batch committed yet"
        : "batch " + lastBatch.getAsLong() + " committed " + lastCommit.map(at -> at + " ("
            + Duration.between(at, now).toSeconds() + " s ago)").orElse("at an unknown time");
    String verdict = stalled(now, maxIdle) ? "STALLED: behind, and no batch committed in the last "
        + maxIdle.toMinutes() + " min" : behind > 0 ? "catching up" : "caught up";
    return String.format("%-28s %s; behind: %s  %s", name, committed, detail, verdict);
  }
}
