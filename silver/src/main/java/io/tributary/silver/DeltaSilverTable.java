package io.tributary.silver;

import io.tributary.common.config.TableFormat;
import io.tributary.common.lakehouse.DeltaCommitMetadata;
import io.tributary.common.lakehouse.SessionSettings;
import io.tributary.common.lakehouse.TableAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;
import org.apache.spark.sql.delta.Snapshot;
import org.apache.spark.sql.types.StructType;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A silver table in Delta Lake. A batch's commit is made idempotent by Delta itself: it carries the stream's id as
 * transaction application id and the batch number plus one as transaction version (Delta skips a write whose version
 * it has recorded for that application, and counts a missing one as -1, hence the plus one). That version is also
 * how a batch is known to be committed, without reading the table's history. The commit's user metadata records the
 * stream, the batch and where in bronze it ended, which tells a replay (same end) from a batch planned again over
 * another range (a checkpoint behind its table): that one is applied again, without the transaction identifiers,
 * which would have Delta skip it.
 */
final class DeltaSilverTable implements SilverTable {
  static final String TXN_APP_ID = "spark.databricks.delta.write.txnAppId";
  static final String TXN_VERSION = "spark.databricks.delta.write.txnVersion";
  /** Commits read back first when looking for a batch's commit; the whole history only when they lack it. */
  private static final int RECENT = 100;

  private final SparkSession spark;
  private final TableAddress address;
  private final DeltaLog log;
  private Snapshot snapshot;

  DeltaSilverTable(SparkSession spark, TableAddress address) {
    this.spark = spark;
    this.address = address;
    this.log = DeltaLog.forTable(spark, address.deltaPath());
    refresh();
    if (snapshot.version() < 0) {
      throw new IllegalStateException("cannot load " + address + ": no Delta table at " + address.deltaPath());
    }
  }

  @Override
  public String name() {
    return address.sqlName();
  }

  @Override
  public TableFormat format() {
    return TableFormat.DELTA;
  }

  @Override
  public void refresh() {
    snapshot = log.update(false, Option.empty(), Option.empty());
  }

  @Override
  public Map<String, String> properties() {
    return CollectionConverters.asJava(snapshot.metadata().configuration());
  }

  @Override
  public void setProperty(String key, String value) {
    spark.sql("ALTER TABLE " + name() + " SET TBLPROPERTIES (" + JsonFields.literal(key) + " = "
        + JsonFields.literal(value) + ")");
    refresh();
  }

  @Override
  public StructType schema() {
    return snapshot.metadata().schema();
  }

  /** The newest batch of the stream: the transaction version Delta recorded for it, less one. */
  @Override
  public java.util.OptionalLong newestBatch(String streamId) {
    Option<Object> version = snapshot.transactions().get(streamId);
    return version.isDefined() ? java.util.OptionalLong.of(((Long) version.get()) - 1) : java.util.OptionalLong.empty();
  }

  @Override
  public Optional<BatchCommit> newestCommit(String streamId) {
    java.util.OptionalLong batch = newestBatch(streamId);
    if (batch.isEmpty()) {
      return Optional.empty();
    }
    // The history may have been cleaned of that commit (log retention): the batch number alone still holds.
    return Optional.of(commitOf(streamId, batch.getAsLong())
        .orElse(new BatchCommit(-1, batch.getAsLong(), Optional.empty())));
  }

  @Override
  public Optional<BatchCommit> commitOf(String streamId, long batchId) {
    Optional<BatchCommit> recent = find(RECENT, streamId, batchId);
    return recent.isPresent() ? recent : find(0, streamId, batchId);
  }

  /** The batch's commit among the newest {@code limit} commits (all for 0). */
  private Optional<BatchCommit> find(int limit, String streamId, long batchId) {
    for (DeltaCommitMetadata.Commit commit : DeltaCommitMetadata.history(spark, address.deltaPath(), limit,
        CommittedBatches.STREAM_ID)) {
      Map<String, String> recorded = commit.recorded();
      if (streamId.equals(recorded.get(CommittedBatches.STREAM_ID))
          && String.valueOf(batchId).equals(recorded.get(CommittedBatches.BATCH_ID))) {
        return Optional.of(new BatchCommit(commit.version(), batchId,
            Optional.ofNullable(recorded.get(CommittedBatches.BRONZE_END))));
      }
    }
    return Optional.empty();
  }

  @Override
  public <T> T commit(Map<String, String> commit, Callable<T> statement) throws Exception {
    String streamId = commit.get(CommittedBatches.STREAM_ID);
    long batchId = Long.parseLong(commit.get(CommittedBatches.BATCH_ID));
    refresh();
    Map<String, String> settings = new HashMap<>(Map.of(DeltaCommitMetadata.USER_METADATA,
        DeltaCommitMetadata.json(commit)));
    // A batch applied again over another range must not be skipped by Delta as the same transaction.
    if (newestBatch(streamId).orElse(Long.MIN_VALUE) < batchId) {
      settings.put(TXN_APP_ID, streamId);
      settings.put(TXN_VERSION, String.valueOf(batchId + 1));
    }
    return SessionSettings.with(spark, settings, statement);
  }

  @Override
  public void append(Dataset<Row> rows, Map<String, String> commit) throws Exception {
    commit(commit, () -> {
      rows.write().format("delta").mode("append").save(address.deltaPath());
      return null;
    });
  }

  /** Delta's file statistics are in its log's state, which only a Spark job reads: not worth a job per batch. */
  @Override
  public Optional<KeysOutside> keysOutside(String column, long lowest, long highest) {
    return Optional.empty();
  }
}
