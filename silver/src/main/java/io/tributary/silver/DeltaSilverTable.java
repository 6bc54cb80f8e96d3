package io.tributary.silver;

import io.tributary.common.config.TableFormat;
import io.tributary.common.lakehouse.DeltaCommitMetadata;
import io.tributary.common.lakehouse.DeltaPlannedAppend;
import io.tributary.common.lakehouse.SessionSettings;
import io.tributary.common.lakehouse.TableAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;
import org.apache.spark.sql.delta.Snapshot;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StructField;
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
  /**
   * The table property that sets below how many bytes of data a table's rows are replaced by rewriting their files
   * (copy-on-write) rather than marked by deletion vectors; {@link #COPY_ON_WRITE_BELOW_DEFAULT} when unset.
   */
  static final String COPY_ON_WRITE_BELOW = "tributary.copy-on-write-below-bytes";
  /**
   * 8 MiB. A MERGE of 1,000 changes (35% updates of random keys) took, median of 6 to 12 (docs/BENCHMARKS.md):
   * 10,000 keys (0.2 MB) 1,586 ms marking and 964 ms rewriting; 100,000 keys (2 MB) 1,666 and 1,232 ms; 1,000,000 keys
   * (18 MB) 2,094 and 2,215 ms. Marking costs a second pass (Delta writes the new rows, then the deletion vectors);
   * rewriting costs the bytes of the files touched, which random keys make the whole table.
   */
  static final long COPY_ON_WRITE_BELOW_DEFAULT = 8L << 20;
  /** Delta's setting that, false, has a MERGE rewrite the files it changes even on a table with deletion vectors. */
  private static final String MERGE_DELETION_VECTORS = "spark.databricks.delta.merge.deletionVectors.persistent";
  /** Where Delta's column mapping keeps the name a column has in the files and their statistics. */
  private static final String PHYSICAL_NAME = "delta.columnMapping.physicalName";

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
  public OptionalLong newestBatch(String streamId) {
    Option<Object> version = snapshot.transactions().get(streamId);
    return version.isDefined() ? OptionalLong.of(((Long) version.get()) - 1) : OptionalLong.empty();
  }

  @Override
  public Optional<BatchCommit> newestCommit(String streamId) {
    OptionalLong batch = newestBatch(streamId);
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
    if (recordsTransaction(streamId, batchId)) {
      settings.put(TXN_APP_ID, streamId);
      settings.put(TXN_VERSION, String.valueOf(batchId + 1));
    }
    if (rewritesFiles()) {
      settings.put(MERGE_DELETION_VECTORS, "false");
    }
    return SessionSettings.with(spark, settings, statement);
  }

  /**
   * Whether the batch's commit records the stream's transaction: not for a batch applied again over another range,
   * which Delta would skip as the same transaction.
   */
  private boolean recordsTransaction(String streamId, long batchId) {
    return newestBatch(streamId).orElse(Long.MIN_VALUE) < batchId;
  }

  /**
   * Whether the batch's MERGE (the only statement a batch commits that replaces rows) rewrites the files it changes:
   * on a table smaller than its {@link #COPY_ON_WRITE_BELOW} property (8 MiB unless set), where rewriting the files
   * costs less than Delta's second pass for deletion vectors. Larger tables get deletion vectors (when the table has
   * them on).
   */
  private boolean rewritesFiles() {
    String below = properties().get(COPY_ON_WRITE_BELOW);
    long limit = COPY_ON_WRITE_BELOW_DEFAULT;
    if (below != null) {
      try {
        limit = Long.parseLong(below.trim());
      } catch (NumberFormatException e) {
        throw new IllegalStateException(name() + ": table property " + COPY_ON_WRITE_BELOW
            + " must be a number of bytes, not '" + below + "'");
      }
    }
    return snapshot.sizeInBytes() < limit;
  }

  @Override
  public void append(Dataset<Row> rows, Map<String, String> commit) throws Exception {
    commit(commit, () -> {
      rows.write().format("delta").mode("append").save(address.deltaPath());
      return null;
    });
  }

  /**
   * In a transaction read at the snapshot of the last refresh ({@link DeltaPlannedAppend}) that depends on the whole
   * table and on the stream's transaction: Delta refuses the commit when a later commit changed the table's data or
   * came from the same stream (a second run of it). Recorded as the batch's commit like {@link #commit}: user
   * metadata, and the stream's transaction unless the batch is applied again. The condition needs no statement of
   * its own: no file met it, and the transaction depends on every file.
   */
  @Override
  public void appendNewKeys(Dataset<Row> rows, String within, Map<String, String> commit) {
    String streamId = commit.get(CommittedBatches.STREAM_ID);
    long batchId = Long.parseLong(commit.get(CommittedBatches.BATCH_ID));
    DeltaPlannedAppend append = DeltaPlannedAppend.at(log, snapshot).dependsOnTransaction(streamId).dependsOnTable()
        .userMetadata(DeltaCommitMetadata.json(commit));
    if (recordsTransaction(streamId, batchId)) {
      append.records(streamId, batchId + 1);
    }
    append.append(spark, rows);
  }

  /**
   * From the statistics Delta keeps per file in its log (its snapshot's state, cached by Delta: one small Spark job
   * whose code is the same for every batch of the table; the comparisons happen here). Integers and dates only:
   * Delta keeps a timestamp's statistics in milliseconds.
   */
  @Override
  public Optional<KeysOutside> keysOutside(String column, long lowest, long highest) {
    StructField field = null;
    for (StructField candidate : snapshot.metadata().schema().fields()) {
      if (candidate.name().equalsIgnoreCase(column)) {
        field = candidate;
      }
    }
    if (field == null) {
      return Optional.empty();
    }
    String asNumber;
    if (field.dataType() instanceof DateType) {
      asNumber = "CAST(unix_date(CAST(%s AS DATE)) AS BIGINT)";
    } else if (field.dataType() instanceof ByteType || field.dataType() instanceof ShortType
        || field.dataType() instanceof IntegerType || field.dataType() instanceof LongType) {
      asNumber = "CAST(%s AS BIGINT)";
    } else {
      return Optional.empty();
    }
    String statsName = field.metadata().contains(PHYSICAL_NAME) ? field.metadata().getString(PHYSICAL_NAME)
        : field.name();
    List<Row> files = snapshot.allFiles().toDF()
        .selectExpr("from_json(stats, 'minValues MAP<STRING, STRING>, maxValues MAP<STRING, STRING>') AS stats")
        .selectExpr(String.format(asNumber, "stats.minValues[" + JsonFields.literal(statsName) + "]"),
            String.format(asNumber, "stats.maxValues[" + JsonFields.literal(statsName) + "]"))
        .collectAsList();
    List<FileKeys> spans = new ArrayList<>();
    long withoutKeys = 0;
    for (Row file : files) {
      if (file.isNullAt(0) || file.isNullAt(1)) {
        withoutKeys++; // read under any bounds
      } else {
        spans.add(new FileKeys(file.getLong(0), file.getLong(1)));
      }
    }
    return Optional.of(KeysOutside.of(lowest, highest, spans, withoutKeys));
  }
}
