package io.tributary.gold;

import com.typesafe.config.ConfigFactory;
import io.tributary.bronze.BronzeIngestJob;
import io.tributary.common.config.ConfigNames;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.localstack.GeneratedRecord;
import io.tributary.localstack.GeneratorOptions;
import io.tributary.localstack.ShopEventGenerator;
import io.tributary.silver.SilverMergeJob;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * A lakehouse with the shop's silver tables built the real way, without a broker: generated shop records are landed
 * in the bronze tables as the bronze job lands Kafka records (topic, partition, offset, ...), and the silver job
 * merges them. Gold tests read these tables; each test writes its gold tables to its own namespace.
 */
final class ShopLakehouse {
  static final String CATALOG = "goldlake";
  static final String MODELS = "models"; // gold/models, relative to the module folder tests run in
  private static final StructType BRONZE = StructType.fromDDL("topic STRING, partition INT, offset BIGINT,"
      + " kafka_timestamp TIMESTAMP, key BINARY, value BINARY, headers ARRAY<STRUCT<key: STRING, value: BINARY>>,"
      + " ingested_at TIMESTAMP");

  private final SparkSession spark;
  private final Path root;
  private final Map<String, Long> nextOffset = new HashMap<>();

  ShopLakehouse(SparkSession spark, Path root) {
    this.spark = spark;
    this.root = root;
  }

  /** The config of this lakehouse with gold tables in {@code namespace}, models read from {@code models}. */
  TributaryConfig config(String namespace, String models) {
    return config(namespace, models, TableFormat.ICEBERG);
  }

  /** The same, with gold tables in {@code goldFormat}. */
  TributaryConfig config(String namespace, String models, TableFormat goldFormat) {
    return TributaryConfig.from(ConfigFactory.parseString("tributary {\n"
        + " catalog { name = " + CATALOG + ", warehouse = \"" + root.resolve("warehouse") + "\" }\n"
        + " kafka.bootstrap-servers = \"127.0.0.1:1\"\n"
        + " checkpoint-location = \"" + root.resolve("checkpoints") + "\"\n"
        + " bronze.sources {\n"
        + "  orders { topic = \"" + GeneratorOptions.ORDERS_TOPIC + "\", table = bronze.orders }\n"
        + "  customers { topic = \"" + GeneratorOptions.CUSTOMERS_TOPIC + "\", table = bronze.customers }\n"
        + " }\n"
        + " silver.entities {\n"
        + "  customers { source = bronze.customers, key = [id], table = silver.customers, schema = \""
        + "id BIGINT, name STRING, email STRING, country STRING, tier STRING, credit_limit DECIMAL(10,2),"
        + " created_at TIMESTAMP, updated_at TIMESTAMP\" }\n"
        + "  orders { source = bronze.orders, decoder = json, key = [order_id], sequence = [seq],"
        + " event-time-field = event_time, table = silver.orders, schema = \"order_id STRING, event_type STRING,"
        + " customer_id BIGINT, status STRING, amount DECIMAL(10,2), currency STRING, items INT, seq BIGINT,"
        + " event_time TIMESTAMP\" }\n"
        + " }\n"
        + " gold { namespace = " + namespace + ", models = \"" + models + "\", format = "
        + ConfigNames.of(goldFormat) + " }\n"
        + "}"));
  }

  TributaryConfig config(String namespace) {
    return config(namespace, MODELS);
  }

  /** Lands the generated records in bronze (one partition per topic, offsets continuing) and merges silver. */
  void load(GeneratorOptions options) throws Exception {
    TributaryConfig config = config("gold");
    LakehouseSession.registerCatalog(spark, config.catalog());
    new BronzeIngestJob(spark, config).createTables();
    List<GeneratedRecord> records = new ArrayList<>();
    ShopEventGenerator.records(options).forEachRemaining(records::add);
    for (String topic : List.of(GeneratorOptions.ORDERS_TOPIC, GeneratorOptions.CUSTOMERS_TOPIC)) {
      List<Row> rows = new ArrayList<>();
      Timestamp now = new Timestamp(System.currentTimeMillis());
      for (GeneratedRecord record : records) {
        if (record.topic().equals(topic)) {
          long offset = nextOffset.merge(topic, 1L, Long::sum) - 1;
          rows.add(RowFactory.create(topic, 0, offset, new Timestamp(record.timestampMs()), record.key(),
              record.value(), List.of(), now));
        }
      }
      String table = CATALOG + ".bronze." + (topic.equals(GeneratorOptions.ORDERS_TOPIC) ? "orders" : "customers");
      spark.createDataFrame(rows, BRONZE).writeTo(table).append();
    }
    new SilverMergeJob(spark, config).runUntilCaughtUp();
  }
}
