package io.tributary.bronze;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tributary.common.cli.JobResult;
import io.tributary.common.config.BronzeSource;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.LocalCheckpoints;
import io.tributary.common.lakehouse.SparkProgress;
import io.tributary.common.lakehouse.Tables;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Loads a range of a source's Kafka records into its bronze table again, adding only the records bronze does not
 * hold: {@code (topic, partition, offset)} is a record's identity, so re-ingesting a loaded range changes nothing.
 * For records an outage or an accepted data loss left out, or rows removed from bronze by mistake.
 *
 * <p>Safe next to the running bronze stream: the range is cut at the end offsets the table's last stream commit
 * records (what lies beyond is the stream's to load), so the two never write the same record.
 */
public final class BronzeReingest {
  /** The arguments name no range of the source (unknown source, offsets that are not JSON, foreign partitions). */
  public static final class InvalidRange extends IllegalArgumentException {
    InvalidRange(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The requested range: offsets per partition ({@code to} exclusive), or a time window. */
  public sealed interface Bounds {
    /** Spark's JSON of offsets per partition, e.g. {@code {"orders":{"0":100,"1":250}}}; {@code to} exclusive. */
    record Offsets(String fromJson, Optional<String> toJson) implements Bounds {}

    /** The records with a Kafka timestamp in {@code [from, to)}. */
    record Times(Instant from, Instant to) implements Bounds {}
  }

  /** What a re-ingest did: the records read from Kafka, those bronze held already, those added, the lost ranges. */
  public record Result(String bronze, long read, long alreadyInBronze, long added, List<LostOffsets.Range> skipped)
      implements JobResult {
    public Result {
      skipped = List.copyOf(skipped);
    }

    /** {@code read 120 records from Kafka; 110 were in lake.bronze.orders already, 10 added}. */
    @Override
    public String describe() {
      String lost = skipped.isEmpty() ? "" : String.format("; skipped %,d records Kafka no longer has",
          skipped.stream().mapToLong(LostOffsets.Range::count).sum());
      return String.format("read %,d records from Kafka; %,d were in %s already, %,d added%s", read, alreadyInBronze,
          bronze, added, lost);
    }
  }

  private final SparkSession spark;
  private final TributaryConfig config;
  private final BronzeTable table;
  private final boolean acceptLoss;

  public BronzeReingest(SparkSession spark, TributaryConfig config) {
    this(spark, config, false);
  }

  private BronzeReingest(SparkSession spark, TributaryConfig config, boolean acceptLoss) {
    this.spark = spark;
    this.config = config;
    this.table = new BronzeTable(new Tables(config.catalog()), config.bronze().format());
    this.acceptLoss = acceptLoss;
  }

  /**
   * The same re-ingest, loading what Kafka still has of the range when retention deleted part of it (recorded in
   * {@code _lost_offsets}); without it, such a range fails naming the lost offsets.
   */
  public BronzeReingest acceptingDataLoss() {
    return new BronzeReingest(spark, config, true);
  }

  /** Re-ingests the range of one source. */
  public Result run(String sourceName, Bounds bounds, PrintStream out) throws Exception {
    try (SparkProgress progress = SparkProgress.start(spark, "  ... re-ingesting " + sourceName, out::println)) {
      return reingest(sourceName, bounds, out);
    }
  }

  private Result reingest(String sourceName, Bounds bounds, PrintStream out) throws Exception {
    BronzeSource source = config.bronze().sources().get(sourceName);
    if (source == null) {
      throw new InvalidRange("No bronze source named '" + sourceName + "' (sources: "
          + String.join(", ", new java.util.TreeSet<>(config.bronze().sources().keySet())) + ")", null);
    }
    LakehouseSession.registerCatalog(spark, config.catalog());
    table.createIfAbsent(spark, source);
    String checkpoint = config.checkpointFor("bronze", config.bronze().format(), source.table());
    // Where the stream's batches load from: the table's end where it records one.
    Map<TopicPartition, Long> streamAt = new BronzeCheckpoint(checkpoint, spark.sessionState().newHadoopConf())
        .resumeOffsets().overriddenBy(BronzeCommits.of(spark, table, source).loaded()).offsets();

    Planned planned = plan(source, bounds, streamAt, out);
    Map<TopicPartition, long[]> ranges = planned.ranges();
    String bronze = table.sqlName(source);
    List<LostOffsets.Range> lost = skipLost(source, bronze, ranges, planned.earliest(), out);
    if (ranges.isEmpty()) {
      out.println("Nothing to re-ingest for source " + source.name() + ".");
      return new Result(bronze, 0, 0, 0, lost);
    }
    out.println("Re-ingesting into " + bronze + ": " + ranges.entrySet().stream()
        .map(entry -> entry.getKey() + " offsets " + entry.getValue()[0] + " to " + (entry.getValue()[1] - 1))
        .collect(Collectors.joining(", ")));
    return loadMissing(source, bronze, ranges, lost, out);
  }

  /** Per partition, the offsets [from, to) to load again (cut where the stream stands), and Kafka's earliest. */
  private record Planned(Map<TopicPartition, long[]> ranges, Map<TopicPartition, Long> earliest) {}

  private Planned plan(BronzeSource source, Bounds bounds, Map<TopicPartition, Long> streamAt, PrintStream out)
      throws Exception {
    Map<TopicPartition, long[]> ranges = new TreeMap<>(java.util.Comparator.comparing(TopicPartition::topic)
        .thenComparingInt(TopicPartition::partition));
    Map<TopicPartition, Long> earliest;
    try (KafkaConsumer<byte[], byte[]> consumer = SourcePartitions.consumer(config.kafka().clientProperties())) {
      List<TopicPartition> partitions = partitionsOf(source, consumer);
      Map<TopicPartition, Long> beginning = consumer.beginningOffsets(partitions, Duration.ofSeconds(60));
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(60));
      earliest = beginning;
      Map<TopicPartition, Long> from = resolve(bounds, true, partitions, consumer, end);
      Map<TopicPartition, Long> to = resolve(bounds, false, partitions, consumer, end);
      for (TopicPartition partition : partitions) {
        if (!from.containsKey(partition)) {
          continue;
        }
        long start = from.get(partition);
        long stop = Math.min(to.getOrDefault(partition, end.get(partition)), end.get(partition));
        Long stream = streamAt.get(partition);
        long cut = Math.min(stop, stream == null ? start : stream);
        if (cut < stop) {
          out.printf("  %s: offsets %d to %d are left to the bronze stream (%s)%n", partition, Math.max(start, cut),
              stop - 1, stream == null ? "it has committed nothing for this partition yet; it loads from its"
                  + " starting offsets when it runs" : "it has not committed them yet");
        }
        if (start < cut) {
          ranges.put(partition, new long[] {start, cut});
        }
      }
    }
    return new Planned(ranges, earliest);
  }

  /**
   * The parts of the ranges retention deleted: without {@link #acceptingDataLoss()} the re-ingest fails naming them;
   * with it they are cut from {@code ranges} and those bronze lacks too are recorded as lost.
   */
  private List<LostOffsets.Range> skipLost(BronzeSource source, String bronze, Map<TopicPartition, long[]> ranges,
      Map<TopicPartition, Long> earliest, PrintStream out) throws Exception {
    List<LostOffsets.Range> lost = new ArrayList<>();
    ranges.forEach((partition, range) -> {
      long first = earliest.getOrDefault(partition, 0L);
      if (first > range[0]) {
        lost.add(new LostOffsets.Range(partition.topic(), partition.partition(), range[0], Math.min(first, range[1])));
      }
    });
    if (!lost.isEmpty()) {
      LostOffsets gone = new LostOffsets(source.name(), source.table().toString(), lost);
      Map<LostOffsets.Range, Long> held = new LinkedHashMap<>();
      for (LostOffsets.Range range : lost) {
        held.put(range, spark.table(bronze).where(rangeFilter(range.topic(), range.partition(), range.from(),
            range.to())).count());
      }
      if (!acceptLoss) {
        throw new BronzeDataLossException(lossMessage(gone, held), null);
      }
      // Only what bronze does not hold either is a gap.
      LostOffsets gaps = new LostOffsets(source.name(), source.table().toString(), lost.stream()
          .filter(range -> held.get(range) < range.count()).toList());
      LostOffsetsLog.record(spark, config.catalog().name(), source.table(), gaps, "reingest --accept-data-loss");
      out.println("  skipping " + gone.records() + " records Kafka no longer has"
          + (gaps.isEmpty() ? " (bronze holds them all)" : "; the ranges bronze lacks are recorded in "
          + LostOffsetsLog.tableFor(config.catalog().name(), source.table())));
      for (LostOffsets.Range range : lost) {
        long[] bounded = ranges.get(new TopicPartition(range.topic(), range.partition()));
        bounded[0] = range.to();
      }
      ranges.values().removeIf(range -> range[0] >= range[1]);
    }
    return lost;
  }

  /** Reads the ranges from Kafka and appends the records bronze does not hold, in one commit. */
  private Result loadMissing(BronzeSource source, String bronze, Map<TopicPartition, long[]> ranges,
      List<LostOffsets.Range> lost, PrintStream out) throws Exception {
    Dataset<Row> records = spark.read().format("kafka")
        .options(config.kafka().sparkSourceOptions())
        .option("assign", assignJson(ranges))
        .option("startingOffsets", offsetsJson(ranges, 0))
        .option("endingOffsets", offsetsJson(ranges, 1))
        .option("includeHeaders", "true")
        .option("failOnDataLoss", String.valueOf(!acceptLoss))
        .load()
        .selectExpr(BronzeStream.COLUMNS)
        .localCheckpoint();
    try {
      String inRange = ranges.entrySet().stream().map(entry -> "(" + rangeFilter(entry.getKey().topic(),
          entry.getKey().partition(), entry.getValue()[0], entry.getValue()[1]) + ")")
          .collect(Collectors.joining(" OR "));
      Dataset<Row> present = spark.table(bronze).where(inRange).select("topic", "partition", "offset");
      Dataset<Row> missing = records.join(present, scala.jdk.javaapi.CollectionConverters.asScala(
          List.of("topic", "partition", "offset")).toSeq(), "left_anti").localCheckpoint();
      try {
        long read = records.count();
        long added = missing.count();
        if (added > 0) {
          Map<String, String> summary = Map.of("tributary.bronze.reingest", ranges.entrySet().stream()
              .map(entry -> entry.getKey() + ":" + entry.getValue()[0] + "-" + (entry.getValue()[1] - 1))
              .collect(Collectors.joining(",")));
          if (table.format() == TableFormat.ICEBERG) {
            CommitMetadata.withCommitProperties(summary, () -> {
              missing.writeTo(bronze).append();
              return null;
            }, Exception.class);
          } else {
            missing.write().format("delta").mode("append").option("userMetadata", summary.toString())
                .save(table.deltaPath(source));
          }
        }
        return new Result(bronze, read, read - added, added, lost);
      } finally {
        LocalCheckpoints.release(missing);
      }
    } finally {
      LocalCheckpoints.release(records);
    }
  }

  private static String rangeFilter(String topic, int partition, long from, long to) {
    return "topic = '" + topic.replace("'", "\\'") + "' AND `partition` = " + partition + " AND `offset` >= " + from
        + " AND `offset` < " + to;
  }

  /** The error for a range Kafka no longer has: what is lost, what bronze holds, and the ways forward. */
  private String lossMessage(LostOffsets gone, Map<LostOffsets.Range, Long> held) {
    long inBronze = held.values().stream().mapToLong(Long::longValue).sum();
    StringBuilder text = new StringBuilder("Kafka no longer has " + gone.records() + " records of the range"
        + " (retention deleted them):\n");
    gone.ranges().forEach(range -> text.append("  ").append(range).append(", bronze holds ").append(held.get(range))
        .append('\n'));
    text.append("Bronze table ").append(gone.table()).append(" holds ").append(inBronze).append(" of them");
    List<String> tables = config.silver().entityList().stream()
        .filter(entity -> entity.source().toString().equals(gone.table()))
        .map(entity -> entity.table().toString()).toList();
    if (inBronze > 0) {
      text.append(": they need no replay from Kafka. To rebuild the tables built from bronze, run:\n")
          .append(tables.isEmpty() ? "  tributary rebuild --config FILE --table <silver table>\n"
              : tables.stream().map(t -> "  tributary rebuild --config FILE --table " + t + "\n")
                  .collect(Collectors.joining()));
    } else {
      text.append(".\n");
    }
    text.append("Nothing was loaded. To load what Kafka still has of the range (and record what neither has in ")
        .append(gone.table(), 0, gone.table().indexOf('.')).append('.').append(LostOffsetsLog.TABLE)
        .append("), add --accept-data-loss.");
    return text.toString();
  }

  private static List<TopicPartition> partitionsOf(BronzeSource source, KafkaConsumer<byte[], byte[]> consumer) {
    List<TopicPartition> partitions = SourcePartitions.of(source, consumer.listTopics(Duration.ofSeconds(60)));
    if (partitions.isEmpty()) {
      throw new IllegalStateException("Kafka has no topic of source '" + source.name() + "' (" + source.subscription()
          + ")");
    }
    return partitions;
  }

  /** The start ({@code from}) or end of the range per partition. */
  private static Map<TopicPartition, Long> resolve(Bounds bounds, boolean from, List<TopicPartition> partitions,
      KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) throws Exception {
    if (bounds instanceof Bounds.Offsets offsets) {
      Optional<String> json = from ? Optional.of(offsets.fromJson()) : offsets.toJson();
      if (json.isEmpty()) {
        return end;
      }
      Map<TopicPartition, Long> given;
      try {
        given = KafkaOffsets.parse(json.get()).offsets();
      } catch (RuntimeException e) {
        throw new InvalidRange("--" + (from ? "from" : "to") + "-offsets must be a JSON object of"
            + " offsets per partition such as {\"shop.orders\":{\"0\":100,\"1\":250}}; got " + json.get(), e);
      }
      for (TopicPartition partition : given.keySet()) {
        if (!partitions.contains(partition)) {
          throw new InvalidRange(partition + " is not a partition of the source's topics " + partitions, null);
        }
      }
      return given;
    }
    Bounds.Times times = (Bounds.Times) bounds;
    long millis = (from ? times.from() : times.to()).toEpochMilli();
    Map<TopicPartition, Long> query = new HashMap<>();
    partitions.forEach(partition -> query.put(partition, millis));
    Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(query, Duration.ofSeconds(60));
    Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
    for (TopicPartition partition : partitions) {
      OffsetAndTimestamp at = found.get(partition);
      offsets.put(partition, at == null ? end.get(partition) : at.offset());
    }
    return offsets;
  }

  private static String assignJson(Map<TopicPartition, long[]> ranges) throws Exception {
    Map<String, List<Integer>> topics = new TreeMap<>();
    ranges.keySet().forEach(partition -> topics.computeIfAbsent(partition.topic(), t -> new ArrayList<>())
        .add(partition.partition()));
    return JSON.writeValueAsString(topics);
  }

  private static String offsetsJson(Map<TopicPartition, long[]> ranges, int index) throws Exception {
    Map<String, Map<String, Long>> topics = new TreeMap<>();
    ranges.forEach((partition, range) -> topics.computeIfAbsent(partition.topic(), t -> new TreeMap<>())
        .put(String.valueOf(partition.partition()), range[index]));
    return JSON.writeValueAsString(topics);
  }
}
