package io.tributary.bronze;

import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A bronze table as the record of what has been loaded from Kafka: every commit of the stream carries the end offsets
 * (exclusive) the table holds after it, in Iceberg's snapshot summary or Delta's commit metadata. A batch is planned
 * on the table's state ({@link #end()}) and committed only if no other stream commit has landed since that state, so
 * two processes writing one table (a job started twice) never both load one range.
 */
interface BronzeCommits {
  /** The summary / commit-metadata key of the end offsets, in Spark's JSON of offsets per partition. */
  String END_OFFSETS = "tributary.kafka.end-offsets";
  /** The offsets the commit's records start at, per partition it loaded. */
  String START_OFFSETS = "tributary.kafka.start-offsets";
  /** The streaming query and batch that made the commit, {@code <query id>/<batch id>}: for people reading history. */
  String BATCH = "tributary.bronze.batch";

  static BronzeCommits of(SparkSession spark, BronzeTable table, io.tributary.common.config.BronzeSource source) {
    return switch (table.format()) {
      case ICEBERG -> new IcebergBronzeCommits(spark, table.sqlName(source));
      case DELTA -> new DeltaBronzeCommits(spark, table.deltaPath(source));
    };
  }

  /**
   * The end offsets the table records (for a table written before bronze recorded them, read off its rows) and the
   * table version they were read at.
   */
  TableEnd end();

  /** The end offsets the table records. */
  default KafkaOffsets loaded() {
    return end().offsets();
  }

  /**
   * Appends the rows in one commit that records the batch's offsets and coordinates, if no other stream commit has
   * landed since {@code basedOn}.
   *
   * @return whether the rows were committed; {@code false} when another writer committed first and the batch must
   *     be planned again on the table's new state
   */
  boolean appendIfUnchangedSince(TableEnd basedOn, Dataset<Row> rows, Map<String, String> summary);

  /**
   * The table's state a batch is planned on.
   *
   * @param offsets the end offsets (exclusive) the table holds
   * @param version the table version they were read at (Iceberg's snapshot id, Delta's table version); null for a
   *     table with no commit yet
   */
  record TableEnd(KafkaOffsets offsets, Long version) {}

  /** The commit metadata of a batch. */
  static Map<String, String> summary(BatchPlan plan, String queryId, long batchId) {
    return Map.of(END_OFFSETS, plan.loadedAfter().json(), START_OFFSETS, plan.loadedFrom().json(),
        BATCH, queryId + "/" + batchId);
  }

  /** The end offsets of a table's rows, for a table whose commits do not record them. */
  static KafkaOffsets fromRows(Dataset<Row> table) {
    List<Row> ends = table.groupBy("topic", "partition").agg(org.apache.spark.sql.functions.max("offset"))
        .collectAsList();
    Map<org.apache.kafka.common.TopicPartition, Long> offsets = new java.util.HashMap<>();
    for (Row end : ends) {
      offsets.put(new org.apache.kafka.common.TopicPartition(end.getString(0), end.getInt(1)), end.getLong(2) + 1);
    }
    return new KafkaOffsets(offsets);
  }
}
