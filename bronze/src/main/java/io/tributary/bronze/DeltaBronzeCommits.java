package io.tributary.bronze;

import io.delta.exceptions.ConcurrentTransactionException;
import io.tributary.common.lakehouse.DeltaCommitMetadata;
import io.tributary.common.lakehouse.DeltaPlannedAppend;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;
import scala.Option;

/**
 * Bronze's record of loaded offsets in a Delta table: the commit's {@code userMetadata}, a JSON object of the summary.
 * Delta's idempotent-write identifiers only say that a batch number was written, not which offsets, so they cannot
 * tell a replay from a batch Spark planned again over a longer range; the offsets decide what a batch writes. The
 * identifiers make the commit conditional instead: it is read at the table version the batch was planned on and
 * records {@code txnVersion} one more than that version, so a second writer that planned on the same version is
 * refused by Delta, whether the two commits overlap in time or not.
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
    try {
      if (basedOn.version() == null) {
        return create(rows, recorded, writeId);
      }
      append(basedOn.version(), rows, recorded);
      return true;
    } catch (RuntimeException e) {
      if (concurrentCommit(e)) {
        return false;
      }
      throw e;
    }
  }

  /**
   * Appends {@code rows} in a Delta transaction read at {@code plannedOn}, the version the batch was planned on, that
   * declares it depends on this table's bronze transaction: Delta refuses the commit (a
   * {@link ConcurrentTransactionException}) when any commit after {@code plannedOn} carries one, that is when another
   * bronze writer loaded offsets since. Maintenance (compaction, vacuum) and other writers' appends do not conflict.
   * The write asks Delta nothing about its transactions ({@link DeltaPlannedAppend}): the offsets recorded with each
   * commit already say what is loaded. The commit still records the transaction (application id and version).
   */
  private void append(long plannedOn, Dataset<Row> rows, Map<String, String> recorded) {
    DeltaLog log = DeltaLog.forTable(spark, path);
    DeltaPlannedAppend.at(log, log.getSnapshotAt(plannedOn, Option.empty(), Option.empty(), false))
        .dependsOnTransaction(TXN_APP_ID)
        .records(TXN_APP_ID, plannedOn + 1)
        .userMetadata(DeltaCommitMetadata.json(recorded))
        .append(spark, rows);
  }

  /**
   * The first write, which creates the table: through Delta's writer with the transaction options (no state to
   * rebuild yet). Delta skips a write whose transaction version it has seen, without a word: the newest stream
   * commit tells whether this one landed.
   */
  private boolean create(Dataset<Row> rows, Map<String, String> recorded, String writeId) {
    rows.write().format("delta").mode("append")
        .option("txnAppId", TXN_APP_ID)
        .option("txnVersion", 0)
        .option("userMetadata", DeltaCommitMetadata.json(recorded))
        .save(path);
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
