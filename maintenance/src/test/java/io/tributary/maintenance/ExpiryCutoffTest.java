package io.tributary.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;

/** The guard of snapshot expiry, on snapshot ids and commit times; no Spark. */
class ExpiryCutoffTest {
  private static final Instant POLICY = Instant.parse("2026-11-20T00:00:00Z");
  /** Snapshot n was committed on day n of November 2026; snapshot 99 does not exist. */
  private static final LongFunction<Optional<Instant>> COMMITTED = id -> id == 99 ? Optional.empty()
      : Optional.of(Instant.parse("2026-11-01T00:00:00Z").plusSeconds((id - 1) * 86_400));

  @Test
  void withoutAStreamThePolicyDecides() {
    assertThat(ExpiryCutoff.of(POLICY, OptionalLong.empty(), COMMITTED, "t")).isEqualTo(new ExpiryCutoff(POLICY, false));
  }

  @Test
  void aStreamBehindThePolicyHoldsTheCutoffBackToItsSnapshot() {
    assertThat(ExpiryCutoff.of(POLICY, OptionalLong.of(5), COMMITTED, "t"))
        .isEqualTo(new ExpiryCutoff(Instant.parse("2026-11-05T00:00:00Z"), true));
  }

  @Test
  void aStreamAheadOfThePolicyChangesNothing() {
    assertThat(ExpiryCutoff.of(POLICY, OptionalLong.of(25), COMMITTED, "t")).isEqualTo(new ExpiryCutoff(POLICY, false));
    assertThat(ExpiryCutoff.of(POLICY, OptionalLong.of(20), COMMITTED, "t")).as("committed at the cutoff")
        .isEqualTo(new ExpiryCutoff(POLICY, false));
  }

  @Test
  void aSnapshotAStreamNeedsThatIsGoneFailsNamingIt() {
    assertThatThrownBy(() -> ExpiryCutoff.of(POLICY, OptionalLong.of(99), COMMITTED, "lake.bronze.orders"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("a stream still needs snapshot 99 of lake.bronze.orders, which no longer exists: the stream cannot"
            + " resume; rebuild it from the start of the table");
  }

  @Test
  void theOldestPositionIsTheEarliestCommitAndAMissingSnapshotCountsFirst() {
    Map<String, Long> positions = new LinkedHashMap<>();
    positions.put("silver-a", 12L);
    positions.put("silver-b", 3L);
    positions.put("silver-c", 7L);
    assertThat(ExpiryCutoff.oldestPosition(positions, COMMITTED)).get().isEqualTo(Map.entry("silver-b", 3L));
    positions.put("silver-d", 99L);
    assertThat(ExpiryCutoff.oldestPosition(positions, COMMITTED)).get().isEqualTo(Map.entry("silver-d", 99L));
    assertThat(ExpiryCutoff.oldestPosition(Map.of(), COMMITTED)).isEmpty();
  }
}
