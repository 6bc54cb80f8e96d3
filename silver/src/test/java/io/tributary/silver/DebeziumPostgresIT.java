package io.tributary.silver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.bronze.BronzeFixture;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.testing.SharedSpark;
import io.tributary.localstack.DebeziumConnectWorker;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.LocalPostgres;
import io.tributary.localstack.testing.SharedKafka;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real source end to end: a PostgreSQL database of 22 tables captured by Debezium's PostgreSQL connector
 * ({@code pgoutput}) on a Kafka Connect worker into the project's broker, twice over: one connector writes Kafka
 * Connect's JSON (schemas enabled), the other Avro in the Confluent wire format through Apicurio Registry's
 * {@code AvroConverter} (its documented Confluent-compatible settings) and the registry stand-in. Each is landed by
 * one bronze source with a topic pattern and kept in silver by one database block. The initial snapshot, then
 * inserts, updates, deletes, a truncate and an {@code ALTER TABLE ... ADD COLUMN} while bronze and silver run; at the
 * end every silver table of both holds, row by row and typed, what {@code SELECT *} of its source table returns.
 */
@ExtendWith({SharedSpark.class, SharedKafka.class})
class DebeziumPostgresIT {
  /** Tables of plain columns: name, key columns, and their DDL. */
  private static final List<String[]> PLAIN = new ArrayList<>();

  static {
    for (int i = 1; i <= 17; i++) {
      String schema = i % 3 == 0 ? "sales" : "public";
      PLAIN.add(new String[] {schema + ".t" + i, "id integer PRIMARY KEY, name text, amount numeric(10,2),"
          + " updated timestamptz, day date"});
    }
    PLAIN.add(new String[] {"sales.regions", "region text, id integer, label varchar(20), PRIMARY KEY (region, id)"});
    PLAIN.add(new String[] {"public.devices", "uid uuid PRIMARY KEY, seen timestamp, ok boolean"});
    PLAIN.add(new String[] {"public.marker", "id integer PRIMARY KEY, phase text"});
  }

  private static final String TYPED = "CREATE TABLE public.all_types (id bigint PRIMARY KEY, amount numeric(12,3),"
      + " ratio numeric, small smallint, whole integer, big bigint, real_value real, double_value double precision,"
      + " flag boolean, label varchar(40), note text, code char(3), born date, at_local timestamp,"
      + " at_zoned timestamptz, at_time time, uid uuid, doc json, docb jsonb, tags text[], scores integer[],"
      + " raw bytea)";

  /**
   * One capture of the database: its connector, its bronze table and its silver tables.
   *
   * @param silverPrefix what the database block's template puts before {@code {schema}_{table}}
   */
  private record Capture(String name, String topicPrefix, String silverPrefix, Map<String, String> converters) {
    String silverTable(String lake, String sourceTable) {
      return lake + ".silver." + silverPrefix + sourceTable.replace('.', '_');
    }

    String config(String decoder) {
      String pattern = topicPrefix.replace(".", "\\\\.") + "\\\\..*";
      return "tributary.bronze.sources." + name + " { pattern = \"" + pattern + "\", table = \"bronze." + name
          + "\" }\n"
          + "tributary.silver.databases." + name + " { source = \"bronze." + name + "\", decoder = " + decoder
          + ", table = \"silver." + silverPrefix + "{schema}_{table}\", trigger = \"1 s\" }\n";
    }

    Map<String, String> connector(LocalPostgres postgres) {
      Map<String, String> connector = new LinkedHashMap<>();
      connector.put("name", name);
      connector.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
      connector.put("tasks.max", "1");
      connector.put("database.hostname", "127.0.0.1");
      connector.put("database.port", String.valueOf(postgres.port()));
      connector.put("database.user", "postgres");
      connector.put("database.password", "unused");
      connector.put("database.dbname", "shop");
      connector.put("topic.prefix", topicPrefix);
      connector.put("plugin.name", "pgoutput");
      connector.put("slot.name", "tributary_" + name);
      connector.put("publication.name", "tributary_" + name);
      connector.put("publication.autocreate.mode", "all_tables");
      connector.put("schema.include.list", "public,sales");
      // Debezium leaves truncates out unless asked.
      connector.put("skipped.operations", "none");
      connector.putAll(converters);
      return connector;
    }
  }

  /** Apicurio's Avro converter as Debezium's documentation sets it for Confluent-compatible consumers. */
  private static Map<String, String> avroConverters(SchemaRegistryStandIn registry) {
    Map<String, String> converters = new LinkedHashMap<>();
    for (String side : List.of("key", "value")) {
      converters.put(side + ".converter", "io.apicurio.registry.utils.converter.AvroConverter");
      converters.put(side + ".converter.apicurio.registry.url", registry.url() + "/apis/registry/v2");
      converters.put(side + ".converter.apicurio.registry.auto-register", "true");
      converters.put(side + ".converter.apicurio.registry.find-latest", "true");
      // The Confluent wire format: a zero byte and the schema's 4-byte id (Apicurio's content id) before the Avro.
      converters.put(side + ".converter.apicurio.registry.as-confluent", "true");
      converters.put(side + ".converter.apicurio.registry.headers.enabled", "false"); // the id in the value, not headers
      converters.put(side + ".converter.apicurio.registry.use-id", "contentId");
    }
    return converters;
  }

  @Test
  void everySilverTableEqualsItsSourceTableAfterSnapshotChangesTruncateAndAlter(SparkSession spark,
      LocalKafkaBroker broker, @TempDir Path dir) throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    try (SchemaRegistryStandIn registry = new SchemaRegistryStandIn()) {
      Capture json = new Capture("pg_json", fixture.topic("pgj"), "", Map.of());
      Capture avro = new Capture("pg_avro", fixture.topic("pga"), "avro_", avroConverters(registry));
      List<Capture> captures = List.of(json, avro);
      TributaryConfig config = fixture.config(Map.of(), json.config("debezium-json") + avro.config("debezium-avro")
          + "tributary.bronze.defaults.trigger = \"1 s\"\n"
          // Where Apicurio Registry serves the Confluent-compatible API.
          + "tributary.schema-registry.url = \"" + registry.url() + "/apis/ccompat/v7\"\n");
      String lake = config.catalog().name();
      try (LocalPostgres postgres = LocalPostgres.start()) {
        try (Connection admin = DriverManager.getConnection(postgres.jdbcUrl("postgres"), "postgres", "");
            Statement sql = admin.createStatement()) {
          sql.execute("CREATE DATABASE shop");
        }
        try (Connection db = DriverManager.getConnection(postgres.jdbcUrl("shop"), "postgres", "")) {
          createAndFill(db);
          DebeziumConnectWorker worker = DebeziumConnectWorker.start(dir.resolve("connect"),
              broker.bootstrapServers(), Map.of(), captures.stream().map(c -> c.connector(postgres)).toList());
          BronzeFixture.Running bronze = null;
          Thread silver = null;
          AtomicReference<Throwable> silverFailure = new AtomicReference<>();
          try {
            for (Capture capture : captures) {
              awaitTopic(fixture, capture.topicPrefix() + ".public.marker");
            }
            bronze = BronzeFixture.runInBackground(spark, config);
            silver = SilverInBackground.start(spark, config, silverFailure);
            awaitMarker(spark, lake, captures, "snapshot", silverFailure, worker);

            Map<String, Map<String, Object>> dropped = droppedTableRows(db);
            Map<String, Map<String, Object>> rekeyed = sourceRows(db, REKEYED);
            change(db);
            awaitMarker(spark, lake, captures, "changed", silverFailure, worker);
            // Topics are independent partitions: the marker may land before another table's last change does.
            // A table silver has not created yet fails the read: also a reason to wait.
            await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(5)).ignoreExceptions()
                .untilAsserted(() -> {
              assertThat(silverFailure.get()).as("silver failed").isNull();
              for (Capture capture : captures) {
                for (String table : tables()) {
                  if (!table.equals(DROPPED) && !table.equals(REKEYED)) {
                    assertThat(silverRows(spark, capture.silverTable(lake, table), db, table))
                        .as(capture.name() + ": " + table).isEqualTo(sourceRows(db, table));
                  }
                }
                assertThat(silverRows(spark, capture.silverTable(lake, DROPPED), COLUMNS_OF_T,
                    List.of("id"))).as(capture.name() + ": a table dropped at the source").isEqualTo(dropped);
                assertThat(silverRows(spark, capture.silverTable(lake, REKEYED), COLUMNS_OF_T, List.of("id")))
                    .as(capture.name() + ": a table whose key changed to other columns").isEqualTo(rekeyed);
              }
            });
          } finally {
            if (bronze != null) {
              bronze.stop(); // stops every active query, silver's too
            }
            if (silver != null) {
              silver.join(60_000);
            }
            worker.close();
          }
          assertThat(silverFailure.get()).isNull();
          for (Capture capture : captures) {
            assertThat(spark.catalog().tableExists(capture.silverTable(lake, "public.no_key")))
                .as(capture.name() + ": a table without a key").isFalse();
          }
          // Only the change after the key moved to other columns, once per converter, saying why.
          assertThat(spark.sql("SELECT topic, reason FROM " + lake + ".silver.quarantine ORDER BY topic")
              .collectAsList()).extracting(row -> row.getString(0) + ": " + row.getString(1)).containsExactly(
                  captures.stream().map(capture -> capture.topicPrefix() + "." + REKEYED + ": the source table's"
                      + " primary key is now (name), which does not hold silver's key (id): merged by the old key,"
                      + " rows the source keeps apart could fold into one. Name the key in tributary.silver.databases."
                      + capture.name() + ".tables.\"" + REKEYED + "\".key and rebuild "
                      + capture.silverTable(lake, REKEYED)).sorted().toArray(String[]::new));
        }
      }
    }
  }

  /** A table dropped at the source while the pipeline runs. */
  private static final String DROPPED = "public.t16";
  /** A table whose primary key moves to other columns while the pipeline runs. */
  private static final String REKEYED = "public.t10";
  /** The columns of the tables t1 to t17. */
  private static final List<String> COLUMNS_OF_T = List.of("amount", "day", "id", "name", "updated");

  /** The dropped table's rows as they will be just before the drop (its last change applied). */
  private static Map<String, Map<String, Object>> droppedTableRows(Connection db) throws SQLException {
    Map<String, Map<String, Object>> rows = sourceRows(db, DROPPED);
    rows.get("[1]").put("name", "last change before the drop");
    return rows;
  }

  /** The captured tables that have a key, each of which silver keeps. */
  private static List<String> tables() {
    List<String> tables = new ArrayList<>();
    PLAIN.forEach(table -> tables.add(table[0]));
    tables.add("public.all_types");
    return tables;
  }

  private static void createAndFill(Connection db) throws SQLException {
    try (Statement sql = db.createStatement()) {
      sql.execute("CREATE SCHEMA sales");
      for (String[] table : PLAIN) {
        sql.execute("CREATE TABLE " + table[0] + " (" + table[1] + ")");
      }
      sql.execute(TYPED);
      sql.execute("CREATE TABLE public.no_key (note text)");
      for (int i = 1; i <= 17; i++) {
        String table = (i % 3 == 0 ? "sales" : "public") + ".t" + i;
        sql.execute("INSERT INTO " + table + " SELECT n, 'name ' || n || ' ü€ 𝄞', n * 1.25, timestamptz"
            + " '2026-01-01 10:00:00.123456+02' + n * interval '1 hour', date '2026-01-01' + n"
            + " FROM generate_series(1, " + (5 + i) + ") n");
      }
      sql.execute("INSERT INTO sales.regions VALUES ('eu', 1, 'Europe'), ('eu', 2, 'Europe 2'), ('us', 1, 'US')");
      sql.execute("INSERT INTO public.devices VALUES ('0b4f2c1e-8a41-4c55-9d8e-111111111111',"
          + " '2026-02-03 04:05:06.789012', true), ('0b4f2c1e-8a41-4c55-9d8e-222222222222', NULL, false)");
      sql.execute("INSERT INTO public.all_types VALUES (1, 12345.678, 3.14159265358979, 7, 70000, 9000000000,"
          + " 1.5, 2.25, true, 'label', 'text ü€ 𝄞 \"quoted\"', 'ab', date '1999-12-31',"
          + " timestamp '2026-03-04 05:06:07.123456', timestamptz '2026-03-04 05:06:07.654321-05',"
          + " time '23:59:58.999999', '6f1c6f8e-7d2c-4bde-8a53-0e1f2a3b4c5d', '{\"a\": [1, 2], \"b\": null}',"
          + " '{\"z\": 1, \"a\": {\"x\": \"y\"}}', ARRAY['x', 'y ü', NULL], ARRAY[1, -2, 3], '\\x00ff10'),"
          + " (2, -0.001, 0, -32768, -1, 0, -0.5, 1e-10, false, '', '', 'xyz', date '2026-01-01',"
          + " timestamp '1970-01-01 00:00:00', timestamptz '2000-01-01 00:00:00+00', time '00:00:00', NULL, 'null',"
          + " '[]', ARRAY[]::text[], NULL, ''), (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
          + " NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)");
      sql.execute("INSERT INTO public.no_key VALUES ('no primary key')");
      sql.execute("INSERT INTO public.marker VALUES (1, 'snapshot')");
    }
  }

  /** Inserts, updates, deletes, a truncate and a new column, while bronze and silver run. */
  private static void change(Connection db) throws SQLException {
    try (Statement sql = db.createStatement()) {
      sql.execute("INSERT INTO public.t1 SELECT n, 'new ' || n, n, now(), current_date FROM generate_series(100, 140) n");
      sql.execute("UPDATE public.t2 SET name = name || ' (changed)', amount = amount + 0.01 WHERE id % 2 = 0");
      sql.execute("DELETE FROM sales.t3 WHERE id <= 3");
      sql.execute("UPDATE public.t4 SET updated = NULL, day = NULL WHERE id = 1");
      sql.execute("TRUNCATE public.t5");
      sql.execute("INSERT INTO public.t5 VALUES (1, 'after the truncate', 1.00, now(), current_date)");
      sql.execute("ALTER TABLE public.t7 ADD COLUMN extra text");
      sql.execute("UPDATE public.t7 SET extra = 'extra ' || id WHERE id <= 4");
      sql.execute("INSERT INTO public.t7 VALUES (99, 'with extra', 9.99, now(), current_date, 'the new column')");
      sql.execute("UPDATE sales.regions SET label = 'Europa' WHERE region = 'eu' AND id = 1");
      sql.execute("DELETE FROM sales.regions WHERE region = 'us'");
      sql.execute("UPDATE public.devices SET seen = timestamp '2026-12-03 12:00:00', ok = NULL"
          + " WHERE uid = '0b4f2c1e-8a41-4c55-9d8e-222222222222'");
      sql.execute("UPDATE public.all_types SET amount = 0.5, tags = ARRAY['changed'], doc = '{}', at_zoned = now()"
          + " WHERE id = 1");
      sql.execute("DELETE FROM public.all_types WHERE id = 3");
      sql.execute("INSERT INTO public.t8 VALUES (1000, 'inserted then deleted', 0, NULL, NULL)");
      sql.execute("DELETE FROM public.t8 WHERE id = 1000");
      sql.execute("INSERT INTO public.no_key VALUES ('still no key')");
      // The key widens to (id, name): silver goes on by the key it recorded, id, which still tells rows apart.
      sql.execute("ALTER TABLE sales.t6 DROP CONSTRAINT t6_pkey, ADD PRIMARY KEY (id, name)");
      sql.execute("UPDATE sales.t6 SET amount = amount * 2 WHERE id <= 3");
      sql.execute("INSERT INTO sales.t6 VALUES (50, 'after the new key', 5.00, now(), current_date)");
      // The key moves to (name), which does not hold silver's key id: the change goes to quarantine, saying so.
      sql.execute("ALTER TABLE public.t10 DROP CONSTRAINT t10_pkey, ADD PRIMARY KEY (name)");
      sql.execute("UPDATE public.t10 SET amount = 0 WHERE id = 1");
      // Dropped at the source: Debezium sends nothing for a DROP, so silver keeps the table as it was.
      sql.execute("UPDATE public.t16 SET name = 'last change before the drop' WHERE id = 1");
      sql.execute("DROP TABLE public.t16");
      sql.execute("INSERT INTO public.marker VALUES (2, 'changed')");
    }
  }

  private static void awaitTopic(BronzeFixture fixture, String topic) {
    await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1)).until(() -> {
      try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
          fixture.client())) {
        return admin.listTopics().names().get().contains(topic);
      }
    });
  }

  private static void awaitMarker(SparkSession spark, String lake, List<Capture> captures, String phase,
      AtomicReference<Throwable> silverFailure, DebeziumConnectWorker worker) {
    await().atMost(Duration.ofMinutes(6)).pollInterval(Duration.ofSeconds(2)).failFast(() -> {
      if (spark.catalog().tableExists(lake + ".silver.quarantine")) {
        List<String> quarantined = spark.sql("SELECT topic, reason FROM " + lake + ".silver.quarantine WHERE topic"
            + " NOT LIKE '%." + REKEYED + "' LIMIT 3")
            .collectAsList().stream().map(Row::toString).toList();
        assertThat(quarantined).as("quarantined (such a record never reaches its table)").isEmpty();
      }
    }).untilAsserted(() -> {
      assertThat(silverFailure.get()).as("silver failed").isNull();
      assertThat(worker.status()).doesNotContain("FAILED");
      for (Capture capture : captures) {
        String table = capture.silverTable(lake, "public.marker");
        assertThat(spark.catalog().tableExists(table)
            && spark.sql("SELECT * FROM " + table + " WHERE phase = '" + phase + "'").count() == 1)
            .as(capture.name() + ": marker '" + phase + "' in silver").isTrue();
      }
    });
  }

  /** The source table's rows, keyed by their key columns' text, each as column name -> normalized value. */
  private static Map<String, Map<String, Object>> sourceRows(Connection db, String table) throws SQLException {
    Map<String, Map<String, Object>> rows = new TreeMap<>();
    List<String> key = keyColumns(db, table);
    try (Statement sql = db.createStatement(); ResultSet result = sql.executeQuery("SELECT * FROM " + table)) {
      ResultSetMetaData meta = result.getMetaData();
      while (result.next()) {
        Map<String, Object> row = new TreeMap<>();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
          row.put(meta.getColumnName(i), normalized(source(result, i, meta.getColumnTypeName(i))));
        }
        rows.put(keyOf(row, key), row);
      }
    }
    return rows;
  }

  private static Object source(ResultSet result, int column, String type) throws SQLException {
    Object value = result.getObject(column);
    if (value == null) {
      return null;
    }
    return switch (type) {
      case "timestamptz" -> result.getObject(column, OffsetDateTime.class).toInstant();
      case "timestamp" -> result.getObject(column, LocalDateTime.class);
      case "date" -> result.getObject(column, LocalDate.class);
      case "time" -> result.getObject(column, LocalTime.class);
      case "uuid", "json", "jsonb" -> result.getString(column);
      default -> value instanceof java.sql.Array array ? Arrays.asList((Object[]) array.getArray()) : value;
    };
  }

  /** The live rows of the silver table, with the source table's columns only, as {@link #sourceRows} gives them. */
  private static Map<String, Map<String, Object>> silverRows(SparkSession spark, String silverTable, Connection db,
      String table) throws SQLException {
    List<String> columns = new ArrayList<>();
    try (Statement sql = db.createStatement(); ResultSet result = sql.executeQuery("SELECT * FROM " + table
        + " LIMIT 0")) {
      for (int i = 1; i <= result.getMetaData().getColumnCount(); i++) {
        columns.add(result.getMetaData().getColumnName(i));
      }
    }
    return silverRows(spark, silverTable, columns, keyColumns(db, table));
  }

  private static Map<String, Map<String, Object>> silverRows(SparkSession spark, String silverTable,
      List<String> columns, List<String> key) {
    Map<String, Map<String, Object>> rows = new TreeMap<>();
    for (Row row : spark.sql("SELECT " + String.join(", ", columns.stream().map(c -> "`" + c + "`").toList())
        + " FROM " + silverTable + " WHERE NOT _is_deleted").collectAsList()) {
      Map<String, Object> values = new TreeMap<>();
      for (int i = 0; i < columns.size(); i++) {
        Object value = row.get(i);
        if (value instanceof String text && text.matches("\\d{2}:\\d{2}:\\d{2}\\.\\d{6}")) {
          value = LocalTime.parse(text); // a time column, which silver keeps as text
        }
        values.put(columns.get(i), normalized(value));
      }
      rows.put(keyOf(values, key), values);
    }
    return rows;
  }

  private static Object normalized(Object value) {
    if (value instanceof BigDecimal decimal) {
      return decimal.stripTrailingZeros().toPlainString();
    }
    if (value instanceof java.sql.Timestamp timestamp) {
      return timestamp.toInstant();
    }
    if (value instanceof java.sql.Date date) {
      return date.toLocalDate();
    }
    if (value instanceof byte[] bytes) {
      return HexFormat.of().formatHex(bytes);
    }
    if (value instanceof scala.collection.Seq<?> seq) {
      return scala.jdk.javaapi.CollectionConverters.asJava(seq).stream().map(DebeziumPostgresIT::normalized).toList();
    }
    if (value instanceof List<?> list) {
      return list.stream().map(DebeziumPostgresIT::normalized).toList();
    }
    if (value instanceof Short small) {
      return small.intValue();
    }
    return value;
  }

  private static List<String> keyColumns(Connection db, String table) throws SQLException {
    List<String> key = new ArrayList<>();
    String[] parts = table.split("\\.");
    try (ResultSet result = db.getMetaData().getPrimaryKeys(null, parts[0], parts[1])) {
      while (result.next()) {
        key.add(result.getString("COLUMN_NAME"));
      }
    }
    return key;
  }

  private static String keyOf(Map<String, Object> row, List<String> key) {
    return key.stream().map(column -> String.valueOf(row.get(column))).toList().toString();
  }
}
