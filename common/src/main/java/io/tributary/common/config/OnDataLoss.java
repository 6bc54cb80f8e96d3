package io.tributary.common.config;

/** What bronze does when Kafka has already deleted offsets it has not loaded yet. */
public enum OnDataLoss {
  /** Stop with a message naming what was lost and how to replay it (the default). */
  FAIL,
  /** Log what is skipped and carry on from the earliest offset Kafka still has. */
  SKIP
}
