package io.tributary.silver;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import io.tributary.common.lakehouse.TableAddress;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** Appends a batch's rejected records to the shared quarantine table, effectively once per stream and batch. */
final class QuarantineWriter {
  private QuarantineWriter() {}

  /**
   * @param rejected the batch's rejected records: their coordinates and bytes, {@code stage} and {@code error}
   * @param commit the batch's commit properties ({@link CommittedBatches#properties})
   */
  static void append(SparkSession spark, TableAddress quarantine, String entity, Dataset<Row> rejected,
      String streamId, long batchId, Optional<String> bronzeEnd, Map<String, String> commit) throws Exception {
    Dataset<Row> all = rejected.selectExpr("topic", "partition", "offset", "kafka_timestamp", "key", "value",
        JsonFields.literal(entity) + " AS entity", "stage", "error AS reason", "current_timestamp() AS quarantined_at");
    SilverTable table = SilverTable.open(spark, quarantine);
    if (CommittedBatches.isReplay(table, streamId, batchId, bronzeEnd)) {
      return;
    }
    // A batch planned again over another range: the records this stream quarantined before stay as they are.
    Dataset<Row> rows = !CommittedBatches.isCommitted(table, streamId, batchId) ? all
        : all.join(spark.table(quarantine.sqlName()).where("entity = " + JsonFields.literal(entity))
            .select("topic", "partition", "offset"), scala.jdk.javaapi.CollectionConverters.asScala(
                List.of("topic", "partition", "offset")).toSeq(), "left_anti");
    table.append(rows, commit);
  }
}
