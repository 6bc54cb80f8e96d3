package io.tributary.gold;

import java.util.List;

/**
 * One model's part of a run.
 *
 * @param model the model
 * @param table the table it committed to
 * @param rows the rows of its result (for incremental: the interval's rows; for merge: the rows merged)
 * @param testsPassed the declared tests, as written
 * @param snapshotId the Iceberg snapshot it committed
 * @param millis how long it took, from query to commit
 */
public record ModelRun(GoldModel model, String table, long rows, List<String> testsPassed, long snapshotId,
    long millis) {}
