package io.tributary.silver;

import io.tributary.common.config.SilverEntity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The foreachBatch body of one entity: decode, quarantine what cannot be applied, keep the latest change per key,
 * then one MERGE in which an older sequence never overwrites a newer one and a delete leaves a tombstone row (so a
 * late, older update cannot resurrect the key). A truncate tombstones every row older than it. Replaying a batch
 * changes nothing: see {@link CommittedBatches}.
 */
final class CdcMerge {
  private static final Logger LOG = LoggerFactory.getLogger(CdcMerge.class);

  private final SilverEntity entity;
  private final String silverTable;
  private final String quarantineTable;
  private final DebeziumJsonDecoder decoder;

  CdcMerge(SilverEntity entity, String silverTable, String quarantineTable) {
    this.entity = entity;
    this.silverTable = silverTable;
    this.quarantineTable = quarantineTable;
    this.decoder = new DebeziumJsonDecoder(entity.schema(), entity.key());
  }

  void apply(Dataset<Row> batch, long batchId) throws Exception {
    SparkSession spark = batch.sparkSession();
    String streamId = spark.sparkContext().getLocalProperty("sql.streaming.queryId");
    Table silver = Spark3Util.loadIcebergTable(spark, silverTable);
    if (CommittedBatches.isCommitted(silver, streamId, batchId)) {
      LOG.info("silver-{} batch {} is already committed to {}; skipping its replay", entity.name(), batchId,
          silverTable);
      return;
    }
    Map<String, String> commit = CommittedBatches.properties(streamId, batchId);
    Dataset<Row> decoded = decoder.decode(batch).persist();
    try {
      quarantine(spark, decoded, streamId, batchId, commit);
      Row truncate = decoded.where("error IS NULL AND op = 't'").selectExpr("max(seq)").first();
      Long truncatedAt = truncate.isNullAt(0) ? null : truncate.getLong(0);
      if (truncatedAt != null) {
        CommitMetadata.withCommitProperties(commit, () -> spark.sql("UPDATE " + silverTable + " SET _is_deleted = true,"
            + " _op = 't', _seq = " + truncatedAt + ", _updated_at = current_timestamp() WHERE _seq < " + truncatedAt),
            RuntimeException.class);
      }
      Dataset<Row> latest = latestPerKey(decoded.where("error IS NULL AND NOT tombstone AND op <> 't'"
          + (truncatedAt == null ? "" : " AND seq > " + truncatedAt)));
      String view = "tributary_changes_" + entity.name() + "_" + batchId;
      latest.createOrReplaceTempView(view);
      CommitMetadata.withCommitProperties(commit, () -> spark.sql(mergeStatement(view)), RuntimeException.class);
      spark.catalog().dropTempView(view);
    } finally {
      decoded.unpersist();
    }
  }

  private void quarantine(SparkSession spark, Dataset<Row> decoded, String streamId, long batchId,
      Map<String, String> commit) throws Exception {
    Dataset<Row> rejected = decoded.where("error IS NOT NULL").selectExpr("topic", "partition", "offset",
        "kafka_timestamp", "key", "value", "'" + entity.name() + "' AS entity", "'decode' AS stage", "error AS reason",
        "current_timestamp() AS quarantined_at");
    if (rejected.isEmpty() || CommittedBatches.isCommitted(Spark3Util.loadIcebergTable(spark, quarantineTable),
        streamId, batchId)) {
      return;
    }
    CommitMetadata.withCommitProperties(commit, () -> {
      rejected.writeTo(quarantineTable).append();
      return null;
    }, Exception.class);
  }

  /** One change per key: the highest sequence, then ts_ms, then the Kafka offset (same key, same partition). */
  private Dataset<Row> latestPerKey(Dataset<Row> changes) {
    String keys = String.join(", ", entity.key().stream().map(k -> "row.`" + k + "`").toList());
    return changes
        .selectExpr("*", "row_number() OVER (PARTITION BY " + keys
            + " ORDER BY seq DESC, ts_ms DESC, offset DESC) AS _rank")
        .where("_rank = 1")
        .selectExpr("row.*", "op AS _op", "seq AS _seq", "ts_ms AS _ts_ms", "op = 'd' AS _is_deleted",
            "topic AS _source_topic", "partition AS _source_partition", "offset AS _source_offset",
            "current_timestamp() AS _updated_at");
  }

  String mergeStatement(String view) {
    List<String> on = new ArrayList<>();
    for (String key : entity.key()) {
      on.add("t.`" + key + "` = s.`" + key + "`");
    }
    List<String> all = new ArrayList<>();
    for (StructField field : entity.schema().fields()) {
      all.add("`" + field.name() + "`");
    }
    all.addAll(List.of("_op", "_seq", "_ts_ms", "_is_deleted", "_source_topic", "_source_partition", "_source_offset",
        "_updated_at"));
    List<String> set = all.stream().map(column -> "t." + column + " = s." + column).toList();
    List<String> values = all.stream().map(column -> "s." + column).toList();
    // Only a newer change applies; an older one (out of order, or a replay) matches no clause.
    return "MERGE INTO " + silverTable + " t USING " + view + " s ON " + String.join(" AND ", on)
        + " WHEN MATCHED AND s._seq > t._seq THEN UPDATE SET " + String.join(", ", set)
        + " WHEN NOT MATCHED THEN INSERT (" + String.join(", ", all) + ") VALUES (" + String.join(", ", values) + ")";
  }
}
