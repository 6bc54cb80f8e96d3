package io.tributary.bronze;

import io.delta.exceptions.ConcurrentTransactionException;
import io.tributary.common.lakehouse.DeltaCommitMetadata;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Bronze's record of loaded offsets in a Delta table: the commit's {@code userMetadata}, a JSON object of the summary.
 * Delta's idempotent-write identifiers only say that a batch number was written, not which offsets, so they cannot
 * tell a replay from a batch Spark planned again over a longer range; the offsets decide what a batch writes. The
 * identifiers make the commit conditional instead: its {@code txnVersion} is one more than the table version the
 * batch was planned on, so a second writer that planned on the same version is skipped by Delta, or refused if the
 * two commits overlap in time.
 */
final class DeltaBronzeCommits implements BronzeCommits {
  /** Commits read back for the newest stream commit; maintenance commits in between record nothing. */
  private static final int HISTORY = 50;
  /** The application id of every bronze stream commit to one table (a table has one bronze source). */
  static final String TXN_APP_ID = "tributary-bronze";
  /** The summary key that tells this writer's commit from another writer's in the history. */
  private static final String WRITE_ID = "tributary.bronze.write-id";

  private final SparkSession spark;
  private final String path;

  DeltaBronzeCommits(SparkSession spark, String path) {
    this.spark = spark;
    this.path = path;
  }

  @Override
  public TableEnd end() {
    List<DeltaCommitMetadata.Commit> history = history(); // none when there is no table yet
    if (history.isEmpty()) {
      return new TableEnd(KafkaOffsets.NONE, null);
    }
    long version = history.get(0).version();
    for (DeltaCommitMetadata.Commit commit : history) {
      if (commit.recorded().containsKey(END_OFFSETS)) {
        return new TableEnd(KafkaOffsets.parse(commit.recorded().get(END_OFFSETS)), version);
      }
    }
    return new TableEnd(BronzeCommits.fromRows(spark.read().format("delta").option("versionAsOf", version)
        .load(path)), version);
  }

  @Override
  public boolean appendIfUnchangedSince(TableEnd basedOn, Dataset<Row> rows, Map<String, String> summary) {
    String writeId = UUID.randomUUID().toString();
    Map<String, String> recorded = new TreeMap<>(summary);
    recorded.put(WRITE_ID, writeId);
    long txnVersion = basedOn.version() == null ? 0 : basedOn.version() + 1;
    try {
      rows.write().format("delta").mode("append")
          .option("txnAppId", TXN_APP_ID)
          .option("txnVersion", txnVersion)
          .option("userMetadata", DeltaCommitMetadata.json(recorded))
          .save(path);
    } catch (RuntimeException e) {
      if (concurrentCommit(e)) {
        return false;
      }
      throw e;
    }
    // Delta skips a write whose txnVersion it has seen, without a word: the newest stream commit tells.
    for (DeltaCommitMetadata.Commit commit : history()) {
      if (commit.recorded().containsKey(END_OFFSETS)) {
        return writeId.equals(commit.recorded().get(WRITE_ID));
      }
    }
    return false;
  }

  private static boolean concurrentCommit(Throwable e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof ConcurrentTransactionException) {
        return true;
      }
    }
    return false;
  }

  /** The newest commits, each with its bronze summary (empty for another writer's: maintenance, a user's write). */
  private List<DeltaCommitMetadata.Commit> history() {
    return DeltaCommitMetadata.recorded(spark, path, HISTORY, END_OFFSETS);
  }
}
