package io.tributary.gold;

/** How a model's result becomes its table. */
public enum Materialization {
  /** Rebuilt in full on every run and replaced atomically. */
  TABLE,
  /** Overwrites exactly the partitions of the run's interval ({@code partition-by} names the column). */
  INCREMENTAL,
  /** Merged on a unique key ({@code unique-key}): new keys inserted, existing ones updated. */
  MERGE
}
