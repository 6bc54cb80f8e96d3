package io.tributary.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TributaryConfigTest {
  private static final String VALID = """
      tributary {
        catalog { warehouse = "/tmp/wh" }
        kafka { bootstrap-servers = "127.0.0.1:1234", options { "security.protocol" = "SASL_SSL" } }
        checkpoint-location = "/tmp/cp"
        bronze.sources {
          orders { topic = "shop.orders", table = "bronze.orders", max-offsets-per-trigger = 1000 }
          customers { topics = ["shop.customers"], table = "bronze.customers", trigger = "1m" }
          events { pattern = "shop\\\\..*", table = "bronze.events", table-properties { "write.target-file-size-bytes" = 1048576 } }
        }
      }
      """;

  private static TributaryConfig parse(String hocon) {
    return TributaryConfig.from(ConfigFactory.parseString(hocon));
  }

  /** A valid config with one line replaced or added, for one mistake at a time. */
  private static String with(String change) {
    return VALID + "\n" + change;
  }

  private static void assertRejected(String hocon, String... problems) {
    assertThatThrownBy(() -> parse(hocon))
        .isInstanceOf(InvalidConfigException.class)
        .satisfies(e -> assertThat(((InvalidConfigException) e).problems()).containsExactly(problems));
  }

  @Test
  void readsAValidConfigWithDefaultsFromReference() {
    TributaryConfig config = parse(VALID);
    assertThat(config.catalog().name()).isEqualTo("lake");
    assertThat(config.catalog().type()).isEqualTo(CatalogType.HADOOP);
    assertThat(config.catalog().deltaWarehouse()).isEqualTo("/tmp/wh/_delta");
    assertThat(config.kafka().sparkSourceOptions())
        .containsEntry("kafka.bootstrap.servers", "127.0.0.1:1234")
        .containsEntry("kafka.security.protocol", "SASL_SSL");
    assertThat(config.bronze().format()).isEqualTo(TableFormat.ICEBERG);

    BronzeSource orders = config.bronze().sources().get("orders");
    assertThat(orders.topics()).containsExactly("shop.orders");
    assertThat(orders.table()).isEqualTo(new TableName("bronze", "orders"));
    assertThat(orders.maxOffsetsPerTrigger()).isEqualTo(1000);
    assertThat(orders.trigger()).isEqualTo(Duration.ofSeconds(2));
    assertThat(orders.startingOffsets()).isEqualTo("earliest");
    assertThat(orders.onDataLoss()).isEqualTo(OnDataLoss.FAIL);

    assertThat(config.bronze().sources().get("customers").trigger()).isEqualTo(Duration.ofMinutes(1));
    BronzeSource events = config.bronze().sources().get("events");
    assertThat(events.pattern()).isEqualTo("shop\\..*");
    assertThat(events.tableProperties()).containsEntry("write.target-file-size-bytes", "1048576");
    assertThat(config.checkpointFor("bronze", TableFormat.ICEBERG, orders.table()))
        .isEqualTo("/tmp/cp/bronze/iceberg/bronze.orders");
  }

  @Test
  void resolvesRelativeLocationsAgainstTheWorkingDirectoryAndKeepsUris() {
    TributaryConfig config = parse(with("tributary.catalog.warehouse = \"var/wh\"\n"
        + "tributary.checkpoint-location = \"s3a://bucket/cp\""));
    assertThat(config.catalog().warehouse()).isEqualTo(Path.of("var/wh").toAbsolutePath().toString());
    assertThat(config.checkpointLocation()).isEqualTo("s3a://bucket/cp");
  }

  @Test
  void rejectsAMissingBootstrapServer() {
    assertRejected(VALID.replace("bootstrap-servers = \"127.0.0.1:1234\", ", ""),
        "tributary.kafka.bootstrap-servers: is missing");
  }

  @Test
  void rejectsAnUnknownFormat() {
    assertRejected(with("tributary.bronze.format = parquet"),
        "tributary.bronze.format: must be one of iceberg, delta; got 'parquet'");
  }

  @Test
  void oneFormatForTheWholeLakehouseAndALayersOwnWins() {
    TributaryConfig delta = parse(with("tributary.format = delta"));
    assertThat(delta.bronze().format()).isEqualTo(TableFormat.DELTA);
    assertThat(delta.silver().format()).isEqualTo(TableFormat.DELTA);
    TributaryConfig mixed = parse(with("tributary.format = delta\ntributary.bronze.format = iceberg"));
    assertThat(mixed.bronze().format()).isEqualTo(TableFormat.ICEBERG);
    assertThat(mixed.silver().format()).isEqualTo(TableFormat.DELTA);
    assertThat(parse(VALID).silver().format()).isEqualTo(TableFormat.ICEBERG);
    assertRejected(with("tributary.silver.format = orc"),
        "tributary.silver.format: must be one of iceberg, delta; got 'orc'");
  }

  @Test
  void databaseBlocksTakeTheirLayersFormats() {
    String database = "\ntributary.silver.databases.shop { source = bronze.events, table = \"silver.shop_{table}\","
        + " topics = \"shop\\\\..*\" }";
    TributaryConfig delta = parse(with("tributary.format = delta" + database));
    assertThat(delta.silver().databases()).containsOnlyKeys("shop");
    assertThat(delta.silver().format()).isEqualTo(TableFormat.DELTA);
    assertThat(delta.bronze().format()).isEqualTo(TableFormat.DELTA);
    // The block's stream resumes only with the formats it ran with: a switch starts it afresh into the new tables.
    TributaryConfig iceberg = parse(with(database));
    TributaryConfig deltaSilver = parse(with("tributary.silver.format = delta" + database));
    var shop = delta.silver().databases().get("shop");
    assertThat(io.tributary.common.lakehouse.SilverCheckpoints.database(iceberg, shop))
        .isEqualTo("/tmp/cp/silver/iceberg/databases.shop");
    assertThat(io.tributary.common.lakehouse.SilverCheckpoints.database(delta, shop))
        .isEqualTo("/tmp/cp/silver/delta/databases.shop");
    assertThat(io.tributary.common.lakehouse.SilverCheckpoints.database(deltaSilver, shop))
        .isEqualTo("/tmp/cp/silver-from-iceberg/delta/databases.shop");
  }

  @Test
  void rejectsAnUnknownCatalogType() {
    assertRejected(with("tributary.catalog.type = nessie"),
        "tributary.catalog.type: must be one of hadoop, hive, rest, jdbc, glue; got 'nessie'");
  }

  @Test
  void rejectsAHadoopCatalogWithoutWarehouse() {
    assertRejected(VALID.replace("catalog { warehouse = \"/tmp/wh\" }", ""),
        "tributary.catalog.warehouse: is missing");
    assertRejected(VALID.replace("catalog { warehouse = \"/tmp/wh\" }", "catalog { warehouse = \"s3a://lake/wh\" }"),
        "tributary.catalog.warehouse: is on an object store (s3a://), where the hadoop catalog loses commits: it"
            + " commits by renaming a metadata file, and object stores have no atomic rename, so two writers (streams,"
            + " maintenance) can both succeed and one commit vanishes. Use a catalog that commits atomically (type ="
            + " rest, jdbc, glue or hive); the tables can stay on the object store");
    // Another catalog keeps its warehouse on the object store.
    assertThat(parse(VALID.replace("catalog { warehouse = \"/tmp/wh\" }",
        "catalog { type = jdbc, warehouse = \"s3a://lake/wh\" }")).catalog().warehouse()).isEqualTo("s3a://lake/wh");
  }

  @Test
  void rejectsASourceWithBothTopicAndPattern() {
    assertRejected(with("tributary.bronze.sources.orders.pattern = \"x.*\""),
        "tributary.bronze.sources.orders.topic: set exactly one of 'topic', 'topics' or 'pattern'");
  }

  @Test
  void rejectsASourceWithoutTable() {
    assertRejected(with("tributary.bronze.sources.extra { topic = t }"),
        "tributary.bronze.sources.extra.table: is missing");
  }

  @Test
  void rejectsATableNameWithoutNamespace() {
    assertRejected(with("tributary.bronze.sources.orders.table = orders"),
        "tributary.bronze.sources.orders.table: must be '<namespace>.<table>' with simple identifiers, got 'orders'");
  }

  @Test
  void rejectsTablesThatTwoLayersOrTwoEntitiesWouldWrite() {
    String entity = "{ source = bronze.orders, key = [id], schema = \"id BIGINT\", table = %s }";
    assertRejected(with("tributary.silver.entities { a = " + entity.formatted("silver.t") + ", b = "
            + entity.formatted("silver.t") + ", c = " + entity.formatted("bronze.customers") + ", d = "
            + entity.formatted("silver.quarantine") + " }"),
        "tributary.silver.entities.b.table: table silver.t is already the table of entity 'a'",
        "tributary.silver.entities.c.table: table bronze.customers is already the bronze table of source 'customers'",
        "tributary.silver.entities.d.table: table silver.quarantine is already the quarantine table");
    assertRejected(with("tributary.silver.quarantine-table = bronze.events"),
        "tributary.silver.quarantine-table: table bronze.events is the bronze table of source 'events'");
  }

  @Test
  void readsADatabaseBlockAndMakesEachTopicsEntity() {
    TributaryConfig config = parse(with("""
        tributary.silver.databases.shop {
          source = bronze.events
          table = "silver.shop_{schema}_{table}"
          topics = "shop\\\\.(public|inventory)\\\\..*"
          exclude = ["public\\\\.audit_.*"]
          history = scd2
          trigger = "5s"
          tables { "public.orders" { history = current, delete-mode = hard }, "public.Tmp-1" { table = silver.tmp } }
        }
        """));
    SilverDatabase shop = config.silver().databases().get("shop");
    assertThat(shop.trigger()).isEqualTo(Duration.ofSeconds(5));
    assertThat(shop.namespace()).isEqualTo("silver");
    SilverEntity customers = shop.entityFor("shop.public.customers").orElseThrow();
    assertThat(customers.table()).isEqualTo(new TableName("silver", "shop_public_customers"));
    assertThat(customers.source()).isEqualTo(new TableName("bronze", "events"));
    assertThat(customers.history()).isEqualTo(SilverEntity.History.SCD2);
    assertThat(customers.name()).isEqualTo("shop.public.customers");
    assertThat(customers.configPath()).isEqualTo("tributary.silver.databases.shop.tables.\"public.customers\"");
    SilverEntity orders = shop.entityFor("shop.public.orders").orElseThrow();
    assertThat(orders.history()).isEqualTo(SilverEntity.History.CURRENT);
    assertThat(orders.deleteMode()).isEqualTo(SilverEntity.DeleteMode.HARD);
    assertThat(shop.entityFor("shop.inventory.Line-Items").orElseThrow().table())
        .isEqualTo(new TableName("silver", "shop_inventory_line_items"));
    assertThat(shop.entityFor("shop.public.Tmp-1").orElseThrow().table()).isEqualTo(new TableName("silver", "tmp"));
    assertThat(shop.entityFor("shop.public.audit_login")).as("excluded").isEmpty();
    assertThat(shop.entityFor("shop.sales.orders")).as("outside topics").isEmpty();
    assertThat(shop.mayHold(new TableName("silver", "shop_x_y"))).isTrue();
    assertThat(shop.mayHold(new TableName("silver", "tmp"))).isTrue();
    assertThat(shop.mayHold(new TableName("silver", "other"))).isFalse();
  }

  @Test
  void rejectsADatabaseBlockThatCannotNameOrKeepItsTables() {
    String database = "tributary.silver.databases.shop { source = bronze.events, table = \"%s\" %s }";
    assertRejected(with(database.formatted("silver.shop", "")),
        "tributary.silver.databases.shop.table: must hold {table} or {topic}, or every source table would get the"
            + " same name; got 'silver.shop'");
    assertRejected(with(database.formatted("{schema}.{table}", "")),
        "tributary.silver.databases.shop.table: the namespace '{schema}' must be a fixed, simple identifier"
            + " (variables go in the table name, so that every table of the database is in one namespace)");
    assertRejected(with(database.formatted("silver.{db}_{table}", "")),
        "tributary.silver.databases.shop.table: knows {table}, {schema} and {topic}; got {db}");
    assertRejected(with(database.formatted("silver.{table}", ", decoder = json, sequence = []")),
        "tributary.silver.databases.shop.decoder: must be debezium-json or debezium-avro: a database's tables are"
            + " named and typed by their Debezium change events");
    assertRejected(with(database.formatted("silver.{table}", ", schema = \"id BIGINT\", topics = \"(\"")),
        "tributary.silver.databases.shop.topics: is not a Java regular expression: Unclosed group in '('",
        "tributary.silver.databases.shop.schema: is per table: set it under tables { \"schema.table\" { schema = ..."
            + " } }");
    assertRejected(with(database.formatted("silver.{table}", ", tables { \"public.a\" { trigger = 1s, histroy ="
            + " scd2 } }")),
        "tributary.silver.databases.shop.tables.\"public.a\".trigger: is set for the whole database"
            + " (tributary.silver.databases.shop.trigger): its tables share one stream",
        "tributary.silver.databases.shop.tables.\"public.a\".histroy: is not a known setting (known: buckets,"
            + " decoder, delete-mode, delete-ops, event-time-field, format-version, history, key,"
            + " max-files-per-trigger, max-quarantine-ratio, max-rows-per-trigger, op-field, schema, schema-evolution, sequence, source, table, trigger)");
    assertRejected(with(database.formatted("silver.{table}", ", tables { \"public.a\" { table = silver.t },"
            + " \"public.b\" { table = silver.t }, \"public.events\" { table = bronze.events } }")),
        "tributary.silver.databases.shop.tables.\"public.b\": table silver.t is already the table of"
            + " tributary.silver.databases.shop.tables.\"public.a\"",
        "tributary.silver.databases.shop.tables.\"public.events\": table bronze.events is already the bronze table"
            + " of source 'events'");
  }

  @Test
  void readsTheQuarantineRatioBetweenZeroAndOne() {
    String entity = "tributary.silver.entities.a { source = bronze.orders, key = [id], schema = \"id BIGINT\","
        + " table = silver.a %s }";
    assertThat(parse(with(entity.formatted(""))).silver().entities().get("a").maxQuarantineRatio()).isEqualTo(0.9);
    assertThat(parse(with(entity.formatted(", max-quarantine-ratio = 1"))).silver().entities().get("a")
        .maxQuarantineRatio()).isEqualTo(1.0);
    assertRejected(with(entity.formatted(", max-quarantine-ratio = 1.5")),
        "tributary.silver.entities.a.max-quarantine-ratio: must be a number from 0 to 1, got 1.5");
    assertRejected(with(entity.formatted(", max-quarantine-ratio = most")),
        "tributary.silver.entities.a.max-quarantine-ratio: must be a number from 0 to 1, got 'most'");
  }

  @Test
  void readsTheFormatVersionOfNewSilverTables() {
    String entity = "tributary.silver.entities.a { source = bronze.orders, key = [id], schema = \"id BIGINT\","
        + " table = silver.a %s }";
    assertThat(parse(with(entity.formatted(""))).silver().entities().get("a").formatVersion()).isEqualTo(3);
    assertThat(parse(with(entity.formatted(", format-version = 2"))).silver().entities().get("a").formatVersion())
        .isEqualTo(2);
    assertRejected(with(entity.formatted(", format-version = 1")),
        "tributary.silver.entities.a.format-version: must be 3 (deletion vectors, the default) or 2 (for readers that"
            + " do not read Iceberg format 3 yet); got 1");
    assertRejected(with(entity.formatted(", format-version = latest")),
        "tributary.silver.entities.a.format-version: must be a positive number, got 'latest'");
  }

  @Test
  void rejectsTwoSourcesWritingTheSameTable() {
    assertRejected(with("tributary.bronze.sources.zeta { topic = other, table = bronze.orders }"),
        "tributary.bronze.sources.zeta.table: table bronze.orders is already the target of source 'orders'");
  }

  @Test
  void rejectsANonPositiveBatchBound() {
    assertRejected(with("tributary.bronze.sources.orders.max-offsets-per-trigger = 0"),
        "tributary.bronze.sources.orders.max-offsets-per-trigger: must be a positive number, got 0");
  }

  @Test
  void rejectsABatchBoundThatIsNotANumber() {
    // Set under defaults and inherited by two sources (orders sets its own): reported once, where it was written.
    assertRejected(with("tributary.bronze.defaults.max-offsets-per-trigger = lots"),
        "tributary.bronze.defaults.max-offsets-per-trigger: must be a positive number, got 'lots'");
  }

  @Test
  void rejectsABadTrigger() {
    assertRejected(with("tributary.bronze.sources.orders.trigger = \"soon\""),
        "tributary.bronze.sources.orders.trigger: must be a duration such as '10 seconds' or '1m', got 'soon'");
  }

  @Test
  void rejectsBadStartingOffsets() {
    assertRejected(with("tributary.bronze.sources.orders.starting-offsets = beginning"),
        "tributary.bronze.sources.orders.starting-offsets: must be 'earliest', 'latest' or a JSON object of offsets"
            + " per partition, got 'beginning'");
  }

  @Test
  void rejectsAnUnknownDataLossPolicy() {
    assertRejected(with("tributary.bronze.sources.orders.on-data-loss = ignore"),
        "tributary.bronze.sources.orders.on-data-loss: must be one of fail, skip; got 'ignore'");
  }

  @Test
  void rejectsAnInvalidPattern() {
    assertRejected(with("tributary.bronze.sources.events.pattern = \"shop.(\""),
        "tributary.bronze.sources.events.pattern: is not a valid regular expression: Unclosed group");
  }

  @Test
  void rejectsAMisspelledKey() {
    assertRejected(with("tributary.bronze.sources.orders.max-offset-per-trigger = 5"),
        "tributary.bronze.sources.orders.max-offset-per-trigger: is not a known setting (known: max-offsets-per-trigger,"
            + " on-data-loss, pattern, starting-offsets, table, table-properties, topic, topics, trigger)");
  }

  @Test
  void rejectsSparkSettingsOutsideTheSparkNamespace() {
    assertRejected(with("tributary.spark { \"sql.shuffle.partitions\" = 4 }"),
        "tributary.spark.\"sql.shuffle.partitions\": Spark settings must start with 'spark.'");
  }

  @Test
  void reportsEveryProblemAtOnce() {
    assertThatThrownBy(() -> parse(with("tributary.bronze.format = orc\ntributary.catalog.type = x")))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessage("Invalid configuration (2 problems):\n"
            + "  - tributary.catalog.type: must be one of hadoop, hive, rest, jdbc, glue; got 'x'\n"
            + "  - tributary.bronze.format: must be one of iceberg, delta; got 'orc'");
  }

  @Test
  void namesAMissingFile(@TempDir Path dir) {
    Path missing = dir.resolve("nope.conf");
    assertThatThrownBy(() -> TributaryConfig.load(missing))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessage("Invalid configuration: --config: file " + missing + " does not exist");
  }

  @Test
  void loadsTheShippedLocalConfig() throws Exception {
    Path shipped = Path.of("../conf/application.conf");
    assertThat(Files.exists(shipped)).isTrue();
    TributaryConfig config = TributaryConfig.load(shipped);
    assertThat(config.bronze().sources()).containsOnlyKeys("orders", "customers", "inventory");
    assertThat(config.silver().databases()).containsOnlyKeys("inventory");
  }

  @Test
  void loadsTheClusterExample() {
    TributaryConfig config = TributaryConfig.load(Path.of("../conf/cluster-example.conf"));
    assertThat(config.catalog().type()).isEqualTo(CatalogType.REST);
    assertThat(config.catalog().warehouse()).isNull();
    assertThat(config.kafka().options()).containsEntry("security.protocol", "SASL_SSL");
    assertThat(config.bronze().sources().get("shop-cdc").pattern()).isEqualTo("shop\\.public\\..*");
  }

  @Test
  void rejectsKafkaOptionsThatSparkOwns() {
    assertRejected(with("tributary.kafka.options { \"auto.offset.reset\" = latest }"),
        "tributary.kafka.options.\"auto.offset.reset\": is set by Spark's Kafka source and cannot be configured");
  }

  @Test
  void rejectsDeltaWithoutAnyWarehouse() {
    assertRejected(VALID.replace("catalog { warehouse = \"/tmp/wh\" }", "catalog { type = rest }")
            + "\ntributary.bronze.format = delta",
        "tributary.catalog.delta-warehouse: is missing: Delta tables need it when the catalog has no warehouse");
  }

  @Test
  void rejectsSourcesGivenAsAList() {
    assertRejected(VALID.replaceAll("(?s)bronze.sources \\{.*?\n        }\n", "")
            + "\ntributary.bronze.sources = [ { topic = a, table = bronze.a } ]",
        "tributary.bronze.sources: must be an object (sources by name), got list");
  }

  @Test
  void namesASourceWhoseNameHasADot() {
    assertRejected(with("tributary.bronze.sources { \"shop.returns\" { topic = r } }"),
        "tributary.bronze.sources.\"shop.returns\".table: is missing");
  }

  @Test
  void namesAnEventEntityWithoutKeyOrSchema() {
    assertRejected(with("tributary.silver.entities.people { source = bronze.people, table = silver.people,"
            + " decoder = json, sequence = [], schema = \"id BIGINT\" }"),
        "tributary.silver.entities.people.key: is missing");
    assertRejected(with("tributary.schema-registry.url = \"http://registry:8081\"\n"
            + "tributary.silver.entities.people { source = bronze.people, table = silver.people,"
            + " decoder = avro, sequence = [], key = [id] }"),
        "tributary.silver.entities.people.schema: is missing: decoder = avro needs the entity's columns as Spark"
            + " DDL, e.g. \"id BIGINT, name STRING\" (Debezium decoders take them from the change stream)");
  }

  @Test
  void aDebeziumEntityLeavesItsColumnsAndKeyToTheChangeStream() {
    SilverEntity people = parse(with("tributary.silver.entities.people { source = bronze.people,"
        + " table = silver.people }")).silver().entities().get("people");
    assertThat(people.columnsFromStream()).isTrue();
    assertThat(people.key()).isEmpty();
    SilverEntity written = parse(with("tributary.silver.entities.people { source = bronze.people,"
        + " table = silver.people, key = [id], schema = \"id BIGINT\" }")).silver().entities().get("people");
    assertThat(written.columnsFromStream()).isFalse();
    assertThat(written.key()).containsExactly("id");
  }

  @Test
  void reportsBadBronzeDefaultsOnceWhereTheyWereWritten() {
    assertRejected(with("tributary.bronze.defaults.starting-offsets = beginning"),
        "tributary.bronze.defaults.starting-offsets: must be 'earliest', 'latest' or a JSON object of offsets"
            + " per partition, got 'beginning'");
    // Below a block too: events merges its own table-properties with these.
    assertRejected(with("tributary.bronze.defaults.table-properties { \"write.format.default\" = [parquet] }"),
        "tributary.bronze.defaults.table-properties.\"write.format.default\": must be a string, got a list");
  }

  @Test
  void resolvesRelativeLocationsAgainstTheBaseFolderGiven(@TempDir Path dir) throws Exception {
    Path file = Files.createDirectories(dir.resolve("conf")).resolve("app.conf");
    Files.writeString(file, VALID + """
        tributary.catalog.warehouse = "var/warehouse"
        tributary.checkpoint-location = "var/checkpoints"
        tributary.gold.models = "s3a://bucket/models"
        """);
    Path project = dir.resolve("project");
    TributaryConfig config = TributaryConfig.load(file, ConfigFactory.empty(), project);
    assertThat(config.catalog().warehouse()).isEqualTo(project.resolve("var/warehouse").toString());
    assertThat(config.catalog().deltaWarehouse()).isEqualTo(project.resolve("var/warehouse/_delta").toString());
    assertThat(config.checkpointLocation()).isEqualTo(project.resolve("var/checkpoints").toString());
    assertThat(config.gold().models()).isEqualTo("s3a://bucket/models");
    // Without one, the working directory, as for every command.
    assertThat(TributaryConfig.load(file).catalog().warehouse())
        .isEqualTo(Path.of("var/warehouse").toAbsolutePath().toString());
  }

  @Test
  void reportsABadInheritedValueWhereItWasWrittenAndAContradictionAtTheEntity() {
    String entities = "tributary.silver.entities {\n"
        + "  people { source = bronze.people, table = silver.people, key = [id], schema = \"id BIGINT\","
        + " history = scd2 }\n"
        + "  pets { source = bronze.pets, table = silver.pets, key = [id], schema = \"id BIGINT\" }\n"
        + "}\n";
    // A bad value under defaults: once, at defaults, not once per entity that inherits it.
    assertRejected(with(entities + "tributary.silver.defaults.trigger = soon"),
        "tributary.silver.defaults.trigger: must be a duration such as '10 seconds' or '1m', got 'soon'");
    // A valid default that contradicts one entity's own setting: at that entity.
    assertRejected(with(entities + "tributary.silver.defaults.delete-mode = hard"),
        "tributary.silver.entities.people.delete-mode: hard cannot be combined with history = scd2, which keeps"
            + " every version");
  }

  @Test
  void aDebeziumEntityWithoutSequenceOrdersByItsConnectorAndAnAvroOneNeedsARegistry() {
    String people = "tributary.silver.entities.people { source = bronze.people, table = silver.people,"
        + " key = [id], schema = \"id BIGINT\", ";
    // Left out: each connector's own position (an empty list the decoders read as that), also for history.
    assertThat(parse(with(people + "history = scd2 }")).silver().entities().get("people").sequence()).isEmpty();
    assertThat(parse(with(people + "sequence = [source.scn] }")).silver().entities().get("people").sequence())
        .containsExactly("source.scn");
    assertRejected(with(people + "sequence = [] }"),
        "tributary.silver.entities.people.sequence: must name at least one envelope field for a Debezium decoder,"
            + " e.g. [\"source.lsn\"], or be left out to order changes by each connector's own position");
    assertRejected(with(people + "decoder = debezium-avro }"),
        "tributary.schema-registry.url: is missing: entity 'people' (decoder debezium-avro) fetches its writer"
            + " schemas from the registry");

    TributaryConfig avro = parse(with(people + "decoder = debezium-avro }\n"
        + "tributary.schema-registry { url = \"https://registry:8081\", username = tributary, password = pw-9f3 }"));
    assertThat(avro.schemaRegistry().url()).contains("https://registry:8081");
    assertThat(avro.schemaRegistry().timeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(avro.schemaRegistry().toString()).contains("username=tributary").doesNotContain("pw-9f3");
    assertRejected(with("tributary.schema-registry { url = \"registry:8081\", password = pw-9f3 }"),
        "tributary.schema-registry.url: must start with http:// or https://",
        "tributary.schema-registry.username: is missing: basic auth needs both username and password");
    // A URL is printed in messages: credentials in it would be too.
    assertRejected(with("tributary.schema-registry.url = \"https://svc:pw-9f3@registry:8081\""),
        "tributary.schema-registry.url: must not hold credentials; set username and password instead");
  }

  @Test
  void printsTheConfigWithoutItsSecrets() {
    TributaryConfig secured = parse(with("tributary.kafka.options {\n"
        + "  \"security.protocol\" = SASL_SSL\n"
        + "  \"sasl.jaas.config\" = \"org.apache.kafka.common.security.scram.ScramLoginModule required"
        + " username=\\\"bronze\\\" password=\\\"jaas-pw-41\\\";\"\n"
        + "  \"ssl.truststore.password\" = trust-pw-42\n"
        + "  \"ssl.key.password\" = key-pw-43\n"
        + "  \"ssl.keystore.key\" = pem-44\n"
        + "}\n"
        + "tributary.spark { \"spark.hadoop.fs.s3a.secret.key\" = s3-pw-45 }\n"
        + "tributary.catalog.properties { credential = \"client:cred-pw-46\", \"s3.endpoint\" = \"http://s3\" }"));
    assertThat(secured.kafka().clientProperties()).containsEntry("ssl.truststore.password", "trust-pw-42");
    assertThat(secured.kafka().toString()).contains("security.protocol=SASL_SSL", "sasl.jaas.config=***")
        .doesNotContain("jaas-pw-41", "trust-pw-42", "key-pw-43", "pem-44");
    assertThat(secured.toString()).contains("s3.endpoint=http://s3")
        .doesNotContain("jaas-pw-41", "trust-pw-42", "key-pw-43", "pem-44", "s3-pw-45", "cred-pw-46");
  }

  @Test
  void namesTheSilverSettingsThatContradictEachOther() {
    String people = "tributary.silver.entities.people { source = bronze.people, table = silver.people,"
        + " key = [id], schema = \"id BIGINT\", ";
    assertRejected(with(people + "decoder = json }"),
        "tributary.silver.entities.people.sequence: is missing: name the event's version field(s), e.g. [\"seq\"],"
            + " or set [] to let the latest record in Kafka win");
    assertRejected(with(people + "decoder = json, sequence = [], history = scd2 }"),
        "tributary.silver.entities.people.sequence: must name the field(s) that order versions when history = scd2;"
            + " [] cannot order a key's history");
    assertRejected(with(people + "delete-mode = hard, history = scd2 }"),
        "tributary.silver.entities.people.delete-mode: hard cannot be combined with history = scd2, which keeps"
            + " every version");
    assertRejected(with(people + "op-field = kind }"),
        "tributary.silver.entities.people.op-field: applies to decoder = json or avro only; Debezium's envelope"
            + " names its op and time");
    assertRejected(with(people + "decoder = json, sequence = [v], delete-ops = [gone] }"),
        "tributary.silver.entities.people.delete-ops: needs op-field, the field whose value names the operation");
    assertRejected(with(people + "schema-evolution = maybe }"),
        "tributary.silver.entities.people.schema-evolution: must be one of evolve, ignore, quarantine; got 'maybe'");
  }
  @Test
  void resolvesMaintenancePoliciesFromDefaultsLayersAndTables() {
    TributaryConfig config = parse(with("""
        tributary.maintenance {
          defaults { retain-last = 5 }
          silver { min-input-files = 3 }
          tables { "bronze.events" { strategy = "sort", sort-by = ["kafka_timestamp"], target-file-size = 64MiB } }
        }
        """));
    MaintenancePolicy orders = config.maintenance().policyFor(new TableName("bronze", "orders"),
        MaintenanceConfig.Layer.BRONZE);
    assertThat(orders.quietFor()).isEqualTo(Duration.ofHours(1));
    assertThat(orders.retainLast()).isEqualTo(5);
    assertThat(orders.targetFileSize()).isEqualTo(128L * 1024 * 1024);
    assertThat(orders.strategy()).isEqualTo(MaintenancePolicy.Strategy.BINPACK);
    assertThat(orders.orphanAge()).isEqualTo(Duration.ofDays(3));
    MaintenancePolicy events = config.maintenance().policyFor(new TableName("bronze", "events"),
        MaintenanceConfig.Layer.BRONZE);
    assertThat(events.strategy()).isEqualTo(MaintenancePolicy.Strategy.SORT);
    assertThat(events.sortBy()).containsExactly("kafka_timestamp");
    assertThat(events.targetFileSize()).isEqualTo(64L * 1024 * 1024);
    assertThat(events.quietFor()).isEqualTo(Duration.ofHours(1));
    MaintenancePolicy silver = config.maintenance().policyFor(new TableName("silver", "x"),
        MaintenanceConfig.Layer.SILVER);
    assertThat(silver.minInputFiles()).isEqualTo(3);
    assertThat(silver.quietFor()).isZero();
    assertThat(silver.tombstoneHorizon()).isEqualTo(Duration.ofDays(30));
  }

  @Test
  void namesUnsafeOrIncompleteMaintenancePolicies() {
    assertRejected(with("""
        tributary.maintenance {
          defaults { orphan-age = 2 hours }
          gold { strategy = "sort", target-file-size = "big" }
          tables { "bronze.nope" { retain-last = 2 }, orders { retain-last = 2 } }
        }
        """),
        // Written once under defaults, inherited by every layer: reported once, where it was written.
        "tributary.maintenance.defaults.orphan-age: must be at least 1 day (a file of a commit still in progress has"
            + " no snapshot yet and would be deleted), got 2 hours",
        "tributary.maintenance.gold.sort-by: must name the columns to sort by when strategy = sort",
        "tributary.maintenance.gold.target-file-size: must be a size such as '128MiB' or '512KiB', got 'big'",
        "tributary.maintenance.tables.\"bronze.nope\": is not a bronze, silver or gold table of this config",
        "tributary.maintenance.tables.orders: must be keyed by \"namespace.table\" (quoted), got 'orders'");
  }
}
