package io.tributary.common.cli;

/**
 * What a job did, returned by its {@code execute} / {@code run} when it ends: immutable, and able to describe
 * itself. The command that ran the job prints {@link #describe()} as its last line and turns {@link #succeeded()}
 * into its exit code (failures that stop a job are exceptions, not results).
 */
public interface JobResult {
  /** What was done, with its counts and time, e.g. {@code 3 streams in 8.2 s, 20,110 records: ...}. */
  String describe();

  /**
   * False when the job ran to its end and found something its caller must act on (a stream that is stalled): the
   * command then exits 1 after printing the result.
   */
  default boolean succeeded() {
    return true;
  }
}
