package io.tributary.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.streaming.StreamingQueryProgress;

/** Keeps every micro-batch's record count and duration, by query name. */
final class ProgressCollector extends StreamingQueryListener {
  /**
   * One micro-batch: records read, the time the whole trigger took (plan, read, write, commit) and the part of it
   * in the batch's sink (for silver: decode, checks, merge and the table commit).
   */
  record Batch(long batchId, long records, long millis, long sinkMillis) {}

  private final Map<String, List<Batch>> batches = new ConcurrentHashMap<>();

  @Override
  public void onQueryStarted(QueryStartedEvent event) {}

  @Override
  public void onQueryProgress(QueryProgressEvent event) {
    StreamingQueryProgress progress = event.progress();
    if (progress.numInputRows() == 0) {
      return;
    }
    Long millis = progress.durationMs().get("triggerExecution");
    Long sink = progress.durationMs().get("addBatch");
    batches.computeIfAbsent(progress.name(), name -> java.util.Collections.synchronizedList(new ArrayList<>()))
        .add(new Batch(progress.batchId(), progress.numInputRows(), millis == null ? 0 : millis,
            sink == null ? 0 : sink));
  }

  @Override
  public void onQueryTerminated(QueryTerminatedEvent event) {}

  List<Batch> batches(String queryName) {
    List<Batch> list = batches.getOrDefault(queryName, List.of());
    synchronized (list) {
      return List.copyOf(list);
    }
  }
}
