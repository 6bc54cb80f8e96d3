package io.tributary.bronze;

import io.tributary.common.config.BronzeSource;
import io.tributary.common.config.KafkaConfig;
import io.tributary.common.lakehouse.PlannedBatchHold;
import io.tributary.common.lakehouse.SparkProgress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The foreachBatch body of a bronze stream: writes what the table does not hold yet of the range Spark planned, in
 * one commit that records where the table now ends ({@link BatchPlan}). A batch replayed after a crash, or planned
 * again over a longer range after its checkpoint files were lost, writes only the records the table lacks: none for a
 * replay, and a replay writes no file at all, so no committed file is ever written again. A batch that starts past
 * the table's end also loads the records in between from Kafka. The commit is conditional on the table state the
 * batch was planned on: when another writer commits first, the batch is planned again on the new state.
 */
final class BronzeBatchWriter {
  private static final Logger LOG = LoggerFactory.getLogger(BronzeBatchWriter.class);
  /** Attempts of one batch when other writers keep committing first. */
  private static final int MAX_ATTEMPTS = 5;

  private final String name;
  private final BronzeSource source;
  private final KafkaConfig kafka;
  private final BronzeCheckpoint checkpoint;
  private final BronzeCommits commits;
  private final String table;
  private final GapPolicy gapPolicy;

  /** What to do with records of a gap that Kafka has deleted (retention passed before they were loaded). */
  interface GapPolicy {
    /** Fails, or records the loss and returns normally so that what Kafka still has is loaded. */
    void onLost(SparkSession spark, LostOffsets lost) throws Exception;
  }

  BronzeBatchWriter(String name, BronzeSource source, KafkaConfig kafka, BronzeCheckpoint checkpoint,
      BronzeCommits commits, String table, GapPolicy gapPolicy) {
    this.name = name;
    this.source = source;
    this.kafka = kafka;
    this.checkpoint = checkpoint;
    this.commits = commits;
    this.table = table;
    this.gapPolicy = gapPolicy;
  }

  void write(Dataset<Row> batch, long batchId) throws Exception {
    // A first batch of millions of records runs minutes: its log says how far it is every 10 s.
    try (SparkProgress progress = SparkProgress.start(batch.sparkSession(), name + " batch " + batchId, LOG::info)) {
      writeOnce(batch, batchId);
    }
  }

  private void writeOnce(Dataset<Row> batch, long batchId) throws Exception {
    SparkSession spark = batch.sparkSession();
    KafkaOffsets end = checkpoint.endOf(batchId).orElseThrow(() -> new IllegalStateException(name + ": the"
        + " checkpoint has no offsets for batch " + batchId + ", which Spark writes before running it"));
    KafkaOffsets start = checkpoint.startOf(batchId);
    for (int attempt = 1; ; attempt++) {
      BronzeCommits.TableEnd tableEnd = commits.end();
      BatchPlan plan = BatchPlan.of(tableEnd.offsets(), start, end);
      if (!plan.hasNewRange()) {
        LOG.info("{} batch {}: {} holds its offsets already (a replay); nothing written", name, batchId, table);
        return;
      }
      Dataset<Row> rows = rowsToWrite(spark, batch, batchId, plan);
      PlannedBatchHold.hold(name, batchId);
      if (commits.appendIfUnchangedSince(tableEnd, rows, BronzeCommits.summary(plan, queryId(spark), batchId))) {
        return;
      }
      if (attempt == MAX_ATTEMPTS) {
        throw new IllegalStateException(name + " batch " + batchId + ": other writers committed to " + table
            + " while each of " + MAX_ATTEMPTS + " attempts to write this batch ran; is another bronze job on the"
            + " same table running?");
      }
      LOG.warn("{} batch {}: another writer committed to {} while this batch was written (a second bronze job on"
          + " the same table?); nothing of this attempt was committed, planning the batch again", name, batchId,
          table);
    }
  }

  /** The batch's records the table lacks, and the records of any gap before the batch. */
  private Dataset<Row> rowsToWrite(SparkSession spark, Dataset<Row> batch, long batchId, BatchPlan plan)
      throws Exception {
    Dataset<Row> rows = batch;
    if (!plan.dropBelow().isEmpty()) {
      LOG.warn("{} batch {} starts before the end of {} (a replay, or a checkpoint behind its table); loading only"
          + " the records from {}", name, batchId, table, new KafkaOffsets(plan.dropBelow()));
      rows = rows.where(notBelow(plan.dropBelow()));
    }
    if (!plan.gaps().isEmpty()) {
      List<LostOffsets.Range> gaps = loadable(spark, plan.gaps());
      LOG.warn("{} batch {} starts after the end of {} (the table was rolled back or recreated, or the checkpoint"
          + " comes from elsewhere); loading the records in between from Kafka too: {}", name, batchId, table,
          gaps.stream().map(LostOffsets.Range::toString).collect(Collectors.joining("; ")));
      if (!gaps.isEmpty()) {
        rows = rows.unionByName(records(spark, gaps));
      }
    }
    return rows;
  }

  private static String queryId(SparkSession spark) {
    String id = spark.sparkContext().getLocalProperty("sql.streaming.queryId");
    return id == null ? "unknown" : id;
  }

  /** Records at or above the offset given for their partition (others pass). */
  static String notBelow(Map<TopicPartition, Long> dropBelow) {
    return "NOT (" + dropBelow.entrySet().stream()
        .map(entry -> "(topic = '" + entry.getKey().topic().replace("\\", "\\\\").replace("'", "\\'")
            + "' AND `partition` = " + entry.getKey().partition() + " AND `offset` < " + entry.getValue() + ")")
        .collect(Collectors.joining(" OR ")) + ")";
  }

  /** The gaps cut to what Kafka still has; what it has deleted goes to the gap policy first. */
  private List<LostOffsets.Range> loadable(SparkSession spark, List<LostOffsets.Range> gaps) throws Exception {
    List<TopicPartition> partitions = gaps.stream()
        .map(gap -> new TopicPartition(gap.topic(), gap.partition())).toList();
    Map<TopicPartition, Long> earliest;
    try (KafkaConsumer<byte[], byte[]> consumer = SourcePartitions.consumer(kafka.clientProperties())) {
      earliest = consumer.beginningOffsets(partitions, Duration.ofSeconds(60));
    }
    List<LostOffsets.Range> lost = new ArrayList<>();
    List<LostOffsets.Range> loadable = new ArrayList<>();
    for (LostOffsets.Range gap : gaps) {
      long first = earliest.getOrDefault(new TopicPartition(gap.topic(), gap.partition()), gap.from());
      if (first > gap.from()) {
        lost.add(new LostOffsets.Range(gap.topic(), gap.partition(), gap.from(), Math.min(first, gap.to())));
      }
      if (Math.max(first, gap.from()) < gap.to()) {
        loadable.add(new LostOffsets.Range(gap.topic(), gap.partition(), Math.max(first, gap.from()), gap.to()));
      }
    }
    if (!lost.isEmpty()) {
      gapPolicy.onLost(spark, new LostOffsets(source.name(), source.table().toString(), lost));
    }
    return loadable;
  }

  /** The Kafka records of the ranges, as bronze rows. */
  private Dataset<Row> records(SparkSession spark, List<LostOffsets.Range> ranges) {
    Map<TopicPartition, Long> from = new TreeMap<>(KafkaOffsets.ORDER);
    Map<TopicPartition, Long> to = new TreeMap<>(KafkaOffsets.ORDER);
    Map<String, List<Integer>> assign = new TreeMap<>();
    for (LostOffsets.Range range : ranges) {
      TopicPartition partition = new TopicPartition(range.topic(), range.partition());
      from.put(partition, range.from());
      to.put(partition, range.to());
      assign.computeIfAbsent(range.topic(), topic -> new ArrayList<>()).add(range.partition());
    }
    String assignJson = assign.entrySet().stream()
        .map(topic -> quoteJson(topic.getKey()) + ":" + topic.getValue())
        .collect(Collectors.joining(",", "{", "}"));
    return spark.read().format("kafka")
        .options(kafka.sparkSourceOptions())
        .option("assign", assignJson)
        .option("startingOffsets", new KafkaOffsets(from).json())
        .option("endingOffsets", new KafkaOffsets(to).json())
        .option("includeHeaders", "true")
        .option("failOnDataLoss", "true")
        .load()
        .selectExpr(BronzeStream.COLUMNS);
  }

  private static String quoteJson(String text) {
    return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
