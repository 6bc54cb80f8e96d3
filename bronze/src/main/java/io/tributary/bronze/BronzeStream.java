package io.tributary.bronze;

import io.tributary.common.config.BronzeSource;
import io.tributary.common.config.KafkaConfig;
import java.util.concurrent.TimeoutException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.DataStreamReader;
import org.apache.spark.sql.streaming.DataStreamWriter;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;

/**
 * The streaming query of one source: Kafka records as they came into the bronze table. Exactly once: Spark's
 * checkpoint records the offsets of each batch, and the table sinks (Iceberg and Delta) record the query id and
 * batch id with each commit, so a batch replayed after a crash is not appended twice.
 */
final class BronzeStream {
  private final BronzeSource source;
  private final KafkaConfig kafka;
  private final BronzeTable table;
  private final String checkpoint;
  private final boolean failOnDataLoss;

  /** The bronze row's columns from Spark's Kafka source; a re-ingest selects the same. */
  static final String[] COLUMNS = {
      "topic",
      "partition",
      "offset",
      "timestamp AS kafka_timestamp",
      "key",
      "value",
      "headers",
      "current_timestamp() AS ingested_at"};

  BronzeStream(BronzeSource source, KafkaConfig kafka, BronzeTable table, String checkpoint, boolean failOnDataLoss) {
    this.source = source;
    this.kafka = kafka;
    this.table = table;
    this.checkpoint = checkpoint;
    this.failOnDataLoss = failOnDataLoss;
  }

  String queryName() {
    return "bronze-" + source.name();
  }

  /** The Kafka records of the source as bronze rows: the streaming read that {@link #start} writes. */
  Dataset<Row> records(SparkSession spark) {
    DataStreamReader reader = spark.readStream().format("kafka")
        .options(kafka.sparkSourceOptions())
        .option("startingOffsets", source.startingOffsets())
        .option("maxOffsetsPerTrigger", source.maxOffsetsPerTrigger())
        .option("includeHeaders", "true")
        .option("failOnDataLoss", String.valueOf(failOnDataLoss));
    reader = source.pattern() != null
        ? reader.option("subscribePattern", source.pattern())
        : reader.option("subscribe", String.join(",", source.topics()));
    return reader.load().selectExpr(COLUMNS);
  }

  StreamingQuery start(SparkSession spark, boolean once) throws TimeoutException {
    DataStreamWriter<Row> writer = records(spark).writeStream()
        .queryName(queryName())
        .outputMode("append")
        .option("checkpointLocation", checkpoint)
        .trigger(once ? Trigger.AvailableNow() : Trigger.ProcessingTime(source.trigger().toMillis()));
    return switch (table.format()) {
      case ICEBERG -> writer.format("iceberg").toTable(table.sqlName(source));
      case DELTA -> writer.format("delta").start(table.deltaPath(source));
    };
  }
}
