package io.tributary.bronze;

import io.tributary.common.config.BronzeSource;
import io.tributary.common.config.KafkaConfig;
import io.tributary.common.lakehouse.CommitWindowPause;
import org.apache.spark.api.java.function.VoidFunction2;
import java.util.concurrent.TimeoutException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.DataStreamReader;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;

/**
 * The streaming query of one source: Kafka records as they came into the bronze table. Exactly once without trusting
 * the checkpoint alone: Spark's checkpoint plans each batch's offsets, and every commit records in the table where
 * the table ends, so that a batch writes exactly what the table lacks ({@link BronzeBatchWriter}). The table sinks of
 * Iceberg and Delta skip a batch whose number they have committed, whatever its range: a checkpoint one batch behind
 * its table lost records that way.
 */
final class BronzeStream {
  private final BronzeSource source;
  private final KafkaConfig kafka;
  private final BronzeTable table;
  private final String checkpoint;
  private final boolean failOnDataLoss;
  private final BronzeBatchWriter.GapPolicy gapPolicy;

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

  BronzeStream(BronzeSource source, KafkaConfig kafka, BronzeTable table, String checkpoint, boolean failOnDataLoss,
      BronzeBatchWriter.GapPolicy gapPolicy) {
    this.source = source;
    this.gapPolicy = gapPolicy;
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
    BronzeBatchWriter writer = new BronzeBatchWriter(queryName(), source, kafka,
        new BronzeCheckpoint(checkpoint, spark.sessionState().newHadoopConf()), BronzeCommits.of(spark, table, source),
        table.sqlName(source), gapPolicy);
    String name = queryName();
    return records(spark).writeStream()
        .queryName(name)
        .option("checkpointLocation", checkpoint)
        .trigger(once ? Trigger.AvailableNow() : Trigger.ProcessingTime(source.trigger().toMillis()))
        .foreachBatch((VoidFunction2<Dataset<Row>, Long>) (batch, batchId) -> {
          writer.write(batch, batchId);
          CommitWindowPause.hold(name, batchId);
        })
        .start();
  }
}
