package io.tributary.silver;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class QuarantineShareTest {

  @Test
  void aReasonPastTheRatioFailsTheBatchNamingItAndTheSetting() {
    assertThat(QuarantineShare.failure("orders", "tributary.silver.entities.orders", 0, 3_000, "missing sequence seqq", 3_000, 0.9)).hasValue(
        "silver-orders batch 0: 3,000 of 3,000 records (100%) go to quarantine for one reason: 'missing sequence"
            + " seqq', more than tributary.silver.entities.orders.max-quarantine-ratio = 0.9 allows; nothing was"
            + " committed. This is most often the config (the entity's decoder, sequence, op-field or"
            + " event-time-field); fix it, or set max-quarantine-ratio = 1 to quarantine such records anyway");
  }

  @Test
  void sharesUpToTheRatioSmallBatchesAndARatioOfOnePass() {
    assertThat(QuarantineShare.failure("orders", "tributary.silver.entities.orders", 3, 100, "r", 90, 0.9)).isEmpty();
    assertThat(QuarantineShare.failure("orders", "tributary.silver.entities.orders", 3, 100, "r", 91, 0.9)).isPresent();
    assertThat(QuarantineShare.failure("orders", "tributary.silver.entities.orders", 3, 19, "r", 19, 0.9)).as("below 20 records").isEmpty();
    assertThat(QuarantineShare.failure("orders", "tributary.silver.entities.orders", 3, 20, "r", 20, 0.9)).isPresent();
    assertThat(QuarantineShare.failure("orders", "tributary.silver.entities.orders", 3, 1_000, "r", 1_000, 1.0)).isEmpty();
  }

  @Test
  void aTenthOrMoreIsWorthAWarning() {
    assertThat(QuarantineShare.worthLookingAt(100, 9)).isFalse();
    assertThat(QuarantineShare.worthLookingAt(100, 10)).isTrue();
    assertThat(QuarantineShare.worthLookingAt(3, 1)).isTrue();
    assertThat(QuarantineShare.worthLookingAt(0, 0)).isFalse();
    assertThat(QuarantineShare.describe(8, "value is not valid JSON", 1))
        .isEqualTo("1 of 8 records (13%) go to quarantine for one reason: 'value is not valid JSON'");
  }
}
