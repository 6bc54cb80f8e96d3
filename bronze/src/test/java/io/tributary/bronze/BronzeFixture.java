package io.tributary.bronze;

import com.typesafe.config.ConfigFactory;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.Tables;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.ProducerSettings;
import io.tributary.localstack.Topics;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** Topics, a config and a way to read back the bronze table, unique per test so tests share one broker and session. */
public final class BronzeFixture {
  private static final AtomicInteger COUNTER = new AtomicInteger();

  /** A Kafka record as the broker stored it: its coordinates and its bytes. */
  public record Sent(String topic, int partition, long offset, byte[] key, byte[] value, List<Header> headers) {
    Coordinates coordinates() {
      return new Coordinates(topic, partition, offset);
    }
  }

  public record Coordinates(String topic, int partition, long offset) {}

  /** A bronze row, with the headers as (key, value) pairs. */
  public record Landed(Coordinates coordinates, byte[] key, byte[] value, List<Map.Entry<String, ByteBuffer>> headers) {}

  public final LocalKafkaBroker broker;
  final String prefix;
  final Path root;
  final String catalog;

  public BronzeFixture(LocalKafkaBroker broker, Path root) {
    this.broker = broker;
    this.root = root;
    int id = COUNTER.incrementAndGet();
    this.prefix = "t" + id + "-" + Long.toHexString(System.nanoTime() & 0xffffff);
    this.catalog = "lake" + id;
  }

  public String topic(String name) {
    return prefix + "." + name;
  }

  public void createTopics(int partitions, String... names) {
    List<String> topics = Arrays.stream(names).map(this::topic).toList();
    Topics.create(client(), topics, partitions, Map.of());
  }

  public Map<String, Object> client() {
    return Map.of("bootstrap.servers", broker.bootstrapServers());
  }

  /** A config with one source per entry (source name → topic name), plus extra HOCON lines. */
  public String hocon(Map<String, String> sources, String extra) {
    return hocon(broker.bootstrapServers(), sources, extra);
  }

  /** The same, for a broker at {@code bootstrapServers} (one that is down, say). */
  public TributaryConfig config(String bootstrapServers, Map<String, String> sources, String extra) {
    return TributaryConfig.from(ConfigFactory.parseString(hocon(bootstrapServers, sources, extra)));
  }

  private String hocon(String bootstrapServers, Map<String, String> sources, String extra) {
    StringBuilder text = new StringBuilder();
    text.append("tributary {\n")
        .append("  catalog { name = ").append(catalog).append(", warehouse = \"").append(root.resolve("warehouse"))
        .append("\" }\n")
        .append("  kafka.bootstrap-servers = \"").append(bootstrapServers).append("\"\n")
        .append("  checkpoint-location = \"").append(root.resolve("checkpoints")).append("\"\n")
        .append("  bronze.sources {\n");
    sources.forEach((name, topic) -> text.append("    ").append(name).append(" { topic = \"").append(topic(topic))
        .append("\", table = \"bronze.").append(name).append("\" }\n"));
    text.append("  }\n}\n").append(extra).append('\n');
    return text.toString();
  }

  public TributaryConfig config(Map<String, String> sources, String extra) {
    return TributaryConfig.from(ConfigFactory.parseString(hocon(sources, extra)));
  }

  /** Sends records and returns them with the partition and offset the broker gave each. */
  public List<Sent> send(String topic, List<ProducerRecord<byte[], byte[]>> records) throws Exception {
    Map<String, Object> properties = ProducerSettings.exactlyOnceInOrder(client());
    properties.put("max.request.size", 16 * 1024 * 1024);
    List<Future<RecordMetadata>> futures = new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (ProducerRecord<byte[], byte[]> record : records) {
        futures.add(producer.send(record));
      }
      producer.flush();
    }
    List<Sent> sent = new ArrayList<>();
    for (int i = 0; i < records.size(); i++) {
      RecordMetadata metadata;
      try {
        metadata = futures.get(i).get();
      } catch (ExecutionException e) {
        throw new AssertionError("sending to " + topic(topic) + " failed: " + e.getCause() + "\nbroker log:\n"
            + broker.logTail(), e);
      }
      ProducerRecord<byte[], byte[]> record = records.get(i);
      sent.add(new Sent(topic(topic), metadata.partition(), metadata.offset(), record.key(), record.value(),
          List.of(record.headers().toArray())));
    }
    return sent;
  }

  /** {@code count} simple records keyed over a small key space, so both partitions get some. */
  public List<Sent> sendSimple(String topic, int count, int firstId) throws Exception {
    List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
    for (int i = firstId; i < firstId + count; i++) {
      records.add(new ProducerRecord<>(topic(topic), ("k" + (i % 17)).getBytes(), ("value-" + i).getBytes()));
    }
    return send(topic, records);
  }

  static ProducerRecord<byte[], byte[]> record(String topic, Integer partition, byte[] key, byte[] value,
      Header... headers) {
    return new ProducerRecord<>(topic, partition, key, value, List.of(headers));
  }

  static Header header(String key, byte[] value) {
    return new RecordHeader(key, value);
  }

  public String tableName(TributaryConfig config, String source) {
    return new Tables(config.catalog()).sqlName(config.bronze().sources().get(source).table(), config.bronze().format());
  }

  public List<Landed> read(SparkSession spark, TributaryConfig config, String source) {
    LakehouseSession.registerCatalog(spark, config.catalog());
    List<Landed> landed = new ArrayList<>();
    for (Row row : spark.table(tableName(config, source))
        .select("topic", "partition", "offset", "key", "value", "headers").collectAsList()) {
      List<Map.Entry<String, ByteBuffer>> headers = new ArrayList<>();
      List<Row> headerRows = row.isNullAt(5) ? List.of() : row.getList(5);
      for (Row header : headerRows) {
        byte[] value = header.isNullAt(1) ? null : (byte[]) header.get(1);
        headers.add(new java.util.AbstractMap.SimpleEntry<>(header.getString(0),
            value == null ? null : ByteBuffer.wrap(value)));
      }
      landed.add(new Landed(new Coordinates(row.getString(0), row.getInt(1), row.getLong(2)),
          (byte[]) row.get(3), (byte[]) row.get(4), headers));
    }
    return landed;
  }

  public static List<Map.Entry<String, ByteBuffer>> headersOf(Sent sent) {
    List<Map.Entry<String, ByteBuffer>> headers = new ArrayList<>();
    for (Header header : sent.headers()) {
      headers.add(new java.util.AbstractMap.SimpleEntry<>(header.key(),
          header.value() == null ? null : ByteBuffer.wrap(header.value())));
    }
    return headers;
  }

  /** A continuous bronze job running in a background thread, as the supervised {@link BronzeIngestJob#run} runs it. */
  public static final class Running {
    private final Thread thread;
    private final java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
    private final SparkSession spark;

    private Running(SparkSession spark, BronzeIngestJob job) {
      this.spark = spark;
      this.thread = new Thread(() -> {
        try {
          job.runContinuously();
        } catch (Throwable e) {
          failure.set(e);
        }
      }, "bronze-under-test");
      thread.start();
    }

    /** Whether the job is still running (it returns only when stopped, or when it failed). */
    public boolean isAlive() {
      return thread.isAlive();
    }

    /** Stops the streams as an operator would (query.stop()) and waits for the job to return. */
    public void stop() throws InterruptedException {
      for (org.apache.spark.sql.streaming.StreamingQuery query : spark.streams().active()) {
        BronzeFixture.stop(query);
      }
      thread.join(60_000);
      if (failure.get() != null) {
        throw new AssertionError("bronze failed", failure.get());
      }
      if (thread.isAlive()) {
        throw new AssertionError("bronze did not stop within 60 s");
      }
    }
  }

  /** Rows in a table, 0 while a job in the background has not created it yet. */
  public static long rows(SparkSession spark, String table) {
    try {
      return spark.table(table).count();
    } catch (Exception e) {
      // Scala throws AnalysisException undeclared, so Java cannot catch it by type.
      if (e instanceof org.apache.spark.sql.AnalysisException) {
        return 0;
      }
      throw e;
    }
  }

  public static Running runInBackground(SparkSession spark, TributaryConfig config) {
    return new Running(spark, new BronzeIngestJob(spark, config));
  }

  public static void stop(org.apache.spark.sql.streaming.StreamingQuery query) {
    try {
      query.stop();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException(e);
    }
  }

  public static boolean sameBytes(byte[] a, byte[] b) {
    return Objects.equals(a == null, b == null) && (a == null || Arrays.equals(a, b));
  }
}
