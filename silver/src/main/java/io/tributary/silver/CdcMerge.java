package io.tributary.silver;

import io.tributary.common.config.SchemaRegistryConfig;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.SilverEntity.SchemaEvolution;
import io.tributary.common.lakehouse.LocalCheckpoints;
import io.tributary.common.lakehouse.SilverCheckpoints;
import io.tributary.common.lakehouse.SparkProgress;
import io.tributary.silver.Truncates.Truncate;
import java.util.List;
import java.util.Map;
import io.tributary.common.lakehouse.TableAddress;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The foreachBatch body of one entity: decode, evolve the schema if the policy says so, quarantine what cannot be
 * applied, remember truncates, then merge the changes into current state ({@link CurrentStateMerge}) or history
 * ({@link HistoryMerge}). Replaying a batch changes nothing: see {@link CommittedBatches}.
 */
final class CdcMerge implements MicroBatchTarget {
  private static final Logger LOG = LoggerFactory.getLogger(CdcMerge.class);

  private final SilverEntity entity;
  private final TableAddress silverAddress;
  private final TableAddress quarantineAddress;
  /** The silver table's SQL name. */
  private final String silverTable;
  private final ChangeDecoder decoder;
  private final String checkpoint;
  private final String configuredCheckpoint;

  /**
   * @param registry where an Avro decoder fetches writer schemas
   * @param checkpoint the checkpoint of the stream applying the batches
   * @param configuredCheckpoint the entity's checkpoint in config, which owns a table that names none
   */
  CdcMerge(SilverEntity entity, SchemaRegistryConfig registry, TableAddress silverTable, TableAddress quarantineTable,
      String checkpoint, String configuredCheckpoint) {
    this.entity = entity;
    this.silverAddress = silverTable;
    this.silverTable = silverTable.sqlName();
    this.quarantineAddress = quarantineTable;
    this.decoder = ChangeDecoder.of(entity, () -> new SchemaRegistryClient(registry));
    this.checkpoint = checkpoint;
    this.configuredCheckpoint = configuredCheckpoint;
  }

  /** The foreachBatch body: the batch of the running streaming query. */
  void apply(Dataset<Row> batch, long batchId) throws Exception {
    apply(batch, batch.sparkSession().sparkContext().getLocalProperty("sql.streaming.queryId"), batchId);
  }

  /**
   * Applies a batch of bronze rows as batch {@code batchId} of stream {@code streamId}. A stream whose table was
   * switched to another checkpoint (a rebuild or a rollback) stops here with {@link StreamMovedException}, also
   * when its commit lost to the switch, so that its supervisor restarts it from the table's checkpoint.
   */
  @Override
  public void apply(Dataset<Row> batch, String streamId, long batchId) throws Exception {
    SparkSession spark = batch.sparkSession();
    SilverTable silver = SilverTable.open(spark, silverAddress);
    requireOwner(silver, null);
    // An initial load or a large batch runs minutes: its log says how far it is every 10 s.
    try (SparkProgress progress = SparkProgress.start(spark, "silver-" + entity.name() + " batch " + batchId,
        LOG::info)) {
      applyOwned(spark, batch, silver, streamId, batchId);
    } catch (Exception e) {
      silver.refresh();
      requireOwner(silver, e);
      throw e;
    }
  }

  /** Whether batch {@code batchId} of stream {@code streamId} (or a later one) is committed to the table. */
  @Override
  public boolean committed(SparkSession spark, String streamId, long batchId) {
    return CommittedBatches.isCommitted(SilverTable.open(spark, silverAddress), streamId, batchId);
  }

  /** True, or a {@link StreamMovedException} when the table has been switched to another checkpoint. */
  private boolean stillOwned(SilverTable silver) {
    silver.refresh();
    requireOwner(silver, null);
    return true;
  }

  private void requireOwner(SilverTable silver, Exception failure) {
    String owner = silver.properties().getOrDefault(SilverCheckpoints.PROPERTY, configuredCheckpoint);
    if (!owner.equals(checkpoint)) {
      throw new StreamMovedException("silver-" + entity.name() + ": " + silverTable + " now goes with the"
          + " checkpoint " + owner + " (it was rebuilt or rolled back); this stream (checkpoint " + checkpoint
          + ") stops without committing", failure);
    }
  }

  private void applyOwned(SparkSession spark, Dataset<Row> batch, SilverTable silver, String streamId, long batchId)
      throws Exception {
    java.util.Optional<String> bronzeEnd = new CheckpointFiles(checkpoint, spark.sessionState().newHadoopConf())
        .batchEnd(batchId);
    if (CommittedBatches.isReplay(silver, streamId, batchId, bronzeEnd)) {
      LOG.info("silver-{} batch {} is already committed to {}; skipping its replay", entity.name(), batchId,
          silverTable);
      return;
    }
    if (CommittedBatches.isCommitted(silver, streamId, batchId)) {
      LOG.warn("silver-{} batch {} is committed to {} with another end in bronze than the checkpoint plans now ({}):"
          + " the checkpoint is behind its table; applying the batch again, which leaves applied changes as they are",
          entity.name(), batchId, silverTable, bronzeEnd.orElse("none"));
    }
    long started = System.nanoTime();
    // Spark turns adaptive execution off in the session a micro-batch runs in (it cannot re-plan a stream), and
    // this session runs the batch's own queries too: a MERGE with 200 fixed shuffle partitions on a small batch
    // spends its time scheduling empty tasks. These are ordinary batch queries, so adaptive execution is safe here.
    spark.conf().set("spark.sql.adaptive.enabled", "true");
    // The latest change per key is a rank-1 window. Spark sorts every row of the batch before its shuffle to drop
    // the other ranks early (WindowGroupLimit), which pays only where a key changes many times in one batch: on
    // 250,000 changes mostly to distinct keys the merge phase took 7% longer with it (bench-silver, two pairs).
    spark.conf().set("spark.sql.optimizer.windowGroupLimitThreshold", "-1");
    Dataset<Row> envelopes = decoder.envelopes(batch);
    StructType schema = SilverTables.entitySchema(silver);
    List<String> key = StreamShape.key(entity, silver);
    StreamVersions.Stated stated = decoder.stated(envelopes);
    // A key the entity names is merged by whatever the source's primary key is; one taken from the stream must stay
    // in it.
    StreamVersions stream = new StreamVersions(silverTable, stated.values(), entity.key().isEmpty() ? stated.keys()
        : Map.of(), entity.configPath() + ".key");
    if (!stream.isEmpty()) {
      SemanticTypes.register(spark);
    }
    // Decoded once and kept as rows for the batch's few passes (summary, quarantine, merge). A local checkpoint,
    // not a cache: building Spark's columnar cache cost more than the decoding, and the cut plan keeps the
    // optimizer from copying the JSON parsing into every filter downstream (measured: 40x slower filters).
    Dataset<Row> decoded = decode(envelopes, schema, key, stream).localCheckpoint();
    long readAt = System.nanoTime();
    try {
      BatchSummary summary = BatchSummary.of(decoded, key.get(0));
      // Each commit of table state below checks first that the table is still this stream's (a rebuild or rollback
      // may have switched it since the batch began).
      if (entity.schemaEvolution() == SchemaEvolution.EVOLVE && summary.needsSchemaChange()
          && stillOwned(silver) && SchemaChanges.evolve(spark, decoded, summary, silverTable, entity.name(), stream)) {
        LocalCheckpoints.release(decoded);
        silver.refresh();
        schema = SilverTables.entitySchema(silver);
        decoded = decode(envelopes, schema, key, stream).localCheckpoint();
        summary = BatchSummary.of(decoded, key.get(0));
      }
      checkQuarantineShare(decoded, summary, batchId);
      if (summary.tombstones() > 0 && entity.decoder() == SilverEntity.Decoder.JSON) {
        LOG.warn("silver-{} batch {}: {} Kafka tombstones (records without a value) change nothing: decoder json"
            + " deletes a key only through its op-field", entity.name(), batchId, summary.tombstones());
      }
      Map<String, String> commit = CommittedBatches.properties(streamId, batchId, bronzeEnd);
      if (summary.rejected() > 0 && stillOwned(silver)) {
        quarantine(spark, decoded, streamId, batchId, bronzeEnd, commit);
      }
      List<Truncate> all = summary.truncates().isEmpty() ? Truncates.of(silver)
          : stillOwned(silver) ? Truncates.remember(silver, summary.truncates()) : List.of();
      if (summary.changes() == 0 && summary.truncates().isEmpty()) {
        return;
      }
      long decodedAt = System.nanoTime();
      SequenceBytes.register(spark);
      Dataset<Row> changes = decoded.where(BatchSummary.CHANGE)
          .selectExpr("row.*", "op AS _op", "seq AS _seq", "coalesce(" + ChangeDecoder.SEQ_BYTES + ", "
              + SequenceBytes.of("seq") + ") AS " + SequenceBytes.COLUMN,
              "ts_ms AS _ts_ms", "op = 'd' AS _is_deleted",
              "topic AS _source_topic", "partition AS _source_partition", "offset AS _source_offset");
      Columns columns = new Columns(schema, key, SilverTables.changeColumns(silver));
      java.util.Optional<KeyRange> range = KeyRange.of(key.get(0), summary.keyType(), summary.keySpan(), silver);
      if (entity.history() == SilverEntity.History.SCD2) {
        new HistoryMerge(silver, columns).apply(spark, changes, range, !summary.truncates().isEmpty(), all, commit);
      } else {
        new CurrentStateMerge(silver, columns, entity.deleteMode()).apply(spark, changes, range,
            Truncates.latest(summary.truncates()), Truncates.latest(all), commit);
      }
      long mergedAt = System.nanoTime();
      LOG.info("silver-{} batch {}: {} changes, {} quarantined, {} truncates, {} tombstones; read and decode {} ms,"
          + " checks and quarantine {} ms, merge {} ms", entity.name(), batchId, summary.changes(), summary.rejected(),
          summary.truncates().size(), summary.tombstones(), (readAt - started) / 1_000_000,
          (decodedAt - readAt) / 1_000_000, (mergedAt - decodedAt) / 1_000_000);
    } finally {
      LocalCheckpoints.release(decoded);
    }
  }

  /** Warns of a reason that quarantines a large share of the batch, and fails the batch past the entity's ratio. */
  private void checkQuarantineShare(Dataset<Row> decoded, BatchSummary summary, long batchId) {
    if (!QuarantineShare.worthLookingAt(summary.records(), summary.rejected())) {
      return;
    }
    Row top = decoded.where("error IS NOT NULL").groupBy("error").count()
        .orderBy(org.apache.spark.sql.functions.col("count").desc()).first();
    String reason = top.getString(0);
    long count = top.getLong(1);
    java.util.Optional<String> failure = QuarantineShare.failure(entity.name(), entity.configPath(), batchId,
        summary.records(), reason, count, entity.maxQuarantineRatio());
    if (failure.isPresent()) {
      throw new QuarantineShareExceeded(failure.get());
    }
    LOG.warn("silver-{} batch {}: {}", entity.name(), batchId, QuarantineShare.describe(summary.records(), reason,
        count));
  }

  /** A batch whose records one reason sends to quarantine beyond the entity's ratio: fails the stream. */
  static final class QuarantineShareExceeded extends IllegalStateException {
    QuarantineShareExceeded(String message) {
      super(message);
    }
  }

  /**
   * The decoded batch, narrowed for caching: the raw bytes are kept only for records going to quarantine, the image
   * only for records that bring fields the schema does not know.
   */
  private Dataset<Row> decode(Dataset<Row> envelopes, StructType schema, List<String> key, StreamVersions stream) {
    return new EntityRows(schema, key, entity.schemaEvolution(), stream).decode(envelopes)
        .withColumn("key", org.apache.spark.sql.functions.expr("CASE WHEN error IS NOT NULL THEN key END"))
        .withColumn("value", org.apache.spark.sql.functions.expr("CASE WHEN error IS NOT NULL THEN value END"))
        .withColumn("image", org.apache.spark.sql.functions.expr("CASE WHEN size(unknown_fields) > 0 THEN image END"));
  }

  private void quarantine(SparkSession spark, Dataset<Row> decoded, String streamId, long batchId,
      java.util.Optional<String> bronzeEnd, Map<String, String> commit) throws Exception {
    QuarantineWriter.append(spark, quarantineAddress, entity.name(), decoded.where("error IS NOT NULL"), streamId,
        batchId, bronzeEnd, commit);
  }
}
