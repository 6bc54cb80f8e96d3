package io.tributary.devtools;

import io.tributary.bronze.BronzeIngestJob;
import io.tributary.common.config.BronzeSource;
import io.tributary.common.config.LocalFolders;
import io.tributary.common.config.SilverDatabase;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.DatabaseTables;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.TableAddress;
import io.tributary.common.lakehouse.Tables;
import io.tributary.gold.GoldJob;
import io.tributary.gold.Interval;
import io.tributary.gold.ModelRun;
import io.tributary.launcher.ConfigOption;
import io.tributary.launcher.Tributary;
import io.tributary.localstack.GeneratedRecord;
import io.tributary.localstack.GeneratorOptions;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.ShopEventGenerator;
import io.tributary.maintenance.MaintenanceJob;
import io.tributary.silver.SilverMergeJob;
import io.tributary.silver.StreamShape;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code demo [--config FILE] [--kafka-home DIR]}: the whole path on this machine. Starts the local broker (unless
 * one runs), produces sample shop events in two parts, runs bronze and silver until caught up after each, builds
 * the gold models for the sample's days, shows the tables and the quarantine, maintains every table (health before
 * and after), and stops the broker it started.
 */
@Command(name = "demo", description = "The whole path on this machine: starts the local broker (unless one runs),"
    + " produces sample shop events and a database's changes, runs bronze and silver, builds gold for the sample's"
    + " days, shows the tables and the quarantine, maintains every table, and stops the broker it started.")
final class DemoCommand implements Callable<Integer> {
  @Option(names = "--config", paramLabel = "FILE", defaultValue = "conf/application.conf",
      description = "The lakehouse configuration (default ${DEFAULT-VALUE}); its Kafka address is replaced by the"
          + " local broker's.")
  private Path configFile;

  @Option(names = "--kafka-home", paramLabel = "DIR", description = "The local broker's folder (default var/kafka).")
  private Path kafkaHomeOption;

  @Override
  public Integer call() {
    Path kafkaHome = (kafkaHomeOption != null ? kafkaHomeOption : KafkaCommand.DEFAULT_HOME).toAbsolutePath();
    // Validate before starting anything.
    TributaryConfig checked = ConfigOption.load(configFile, Map.of());
    BronzeIngestJob.checkConfig(checked);
    SilverMergeJob.checkConfig(checked);

    Optional<LocalKafkaBroker> alreadyRunning = LocalKafkaBroker.find(kafkaHome);
    step("Starting the local Kafka broker (KRaft, data in " + kafkaHome + ")");
    LocalKafkaBroker broker = alreadyRunning.orElseGet(() -> LocalKafkaBroker.start(kafkaHome, Map.of()));
    System.out.println("  broker at " + broker.bootstrapServers() + ", pid " + broker.pid());
    try {
      TributaryConfig config = ConfigOption.load(configFile,
          Map.of("tributary.kafka.bootstrap-servers", broker.bootstrapServers()));

      // In two parts, so that silver's second run merges later changes into the state its first run loaded (and
      // the tables have a history to travel in).
      GeneratorOptions sample = GeneratorOptions.demo(Instant.now());
      long cutoff = sample.start().plus(sample.span().multipliedBy(2).dividedBy(3)).toEpochMilli();
      List<GeneratedRecord> records = new ArrayList<>();
      ShopEventGenerator.records(sample).forEachRemaining(records::add);
      List<GeneratedRecord> inventory = new ArrayList<>();
      ShopEventGenerator.inventory(sample).forEachRemaining(inventory::add);
      step("Producing sample shop events (orders, Debezium customer changes) and the inventory database's"
          + " changes: the first two days");
      produce(config, records, cutoff, true);
      produce(config, inventory, cutoff, true);

      step("Bronze: landing every topic, exactly once, until caught up");
      LocalFolders.check(config);
      SparkSession spark = LakehouseSession.builder(config, "demo").getOrCreate();
      spark.sparkContext().setLogLevel("WARN");
      System.out.println("  bronze: " + new BronzeIngestJob(spark, config).runUntilCaughtUp().describe());
      step("Silver: merging each entity's changes from bronze, out-of-order safe");
      System.out.println("  silver: " + new SilverMergeJob(spark, config).runUntilCaughtUp().describe());

      step("Producing the third day: later changes to the same orders, customers and inventory, and a new table of"
          + " the inventory database (suppliers)");
      produce(config, records, cutoff, false);
      produce(config, inventory, cutoff, false);
      step("Bronze and silver again: each continues from its checkpoint");
      System.out.println("  bronze: " + new BronzeIngestJob(spark, config).runUntilCaughtUp().describe());
      System.out.println("  silver: " + new SilverMergeJob(spark, config).runUntilCaughtUp().describe());

      Tables tables = new Tables(config.catalog());
      for (BronzeSource source : config.bronze().sourceList()) {
        var address = TableAddress.of(tables, source.table(), config.bronze().format());
        String table = address.sqlName();
        long rows = spark.table(table).count();
        step("Bronze table " + address + ": " + String.format("%,d", rows) + " rows, one per Kafka record");
        spark.sql("SELECT topic, partition, offset, kafka_timestamp, CAST(key AS STRING) AS key,"
            + " substr(CAST(value AS STRING), 1, 70) AS value FROM " + table + " ORDER BY kafka_timestamp DESC LIMIT 5")
            .show(false);
      }
      for (SilverEntity entity : config.silver().entityList()) {
        TableAddress address = TableAddress.of(tables, entity.table(), config.silver().format());
        String table = address.sqlName();
        if (entity.history() == SilverEntity.History.SCD2) {
          Row counts = spark.sql("SELECT count(*), count_if(_is_current AND NOT _is_deleted) FROM " + table).first();
          step(String.format("Silver table %s: %,d versions, %,d current rows (history, SCD type 2)", address,
              counts.getLong(0), counts.getLong(1)));
          // The most recently changed key's whole timeline.
          // Key and columns from the table: an entity may leave both to the change stream.
          List<String> keyColumns = StreamShape.key(spark, entity, address);
          String key = String.join(", ", keyColumns);
          spark.sql("SELECT " + key + ", _op, _valid_from, _valid_to, _is_current, "
              + String.join(", ", List.of(spark.table(table).columns()).stream()
                  .filter(column -> !column.startsWith("_") && !keyColumns.contains(column)).toList())
              + " FROM " + table + " WHERE (" + key + ") IN (SELECT " + key + " FROM " + table
              + " WHERE _op <> 't' ORDER BY _valid_from DESC LIMIT 1) ORDER BY _seq").show(false);
          continue;
        }
        Row counts = spark.sql("SELECT count_if(NOT _is_deleted), count_if(_is_deleted) FROM " + table).first();
        step(String.format("Silver table %s: %,d current rows, %,d deleted keys kept as tombstones", address,
            counts.getLong(0), counts.getLong(1)));
        spark.sql("SELECT * FROM " + table + " WHERE NOT _is_deleted ORDER BY _seq DESC LIMIT 5").show(false);
      }
      for (SilverDatabase database : config.silver().databaseList()) {
        Map<TableName, String> kept = DatabaseTables.of(spark, config, database);
        step("Database " + database.name() + " (" + database.configPath() + "): " + kept.size() + " silver tables"
            + " from one block, columns and keys from the change events");
        kept.forEach((table, topic) -> {
          var address = TableAddress.of(tables, table, config.silver().format());
          String name = address.sqlName();
          List<String> columns = List.of(spark.table(name).columns());
          String live = columns.contains("_is_current") ? "_is_current AND NOT _is_deleted" : "NOT _is_deleted";
          System.out.printf("  %-34s from %-28s %,5d current rows; columns: %s%n", address, topic,
              spark.sql("SELECT count_if(" + live + ") FROM " + name).first().getLong(0),
              String.join(", ", columns.stream().filter(column -> !column.startsWith("_")).toList()));
        });
      }
      var quarantineAddress = TableAddress.of(tables, config.silver().quarantine(),
          config.silver().format());
      String quarantine = quarantineAddress.sqlName();
      step("Quarantine " + quarantineAddress + ": records no decoder accepted, by reason");
      spark.sql("SELECT entity, reason, count(*) AS records FROM " + quarantine + " GROUP BY entity, reason"
          + " ORDER BY records DESC").show(false);
      step("Gold: building the SQL models of " + config.gold().models() + " for the sample's days");
      Interval days = Interval.days(LocalDate.ofInstant(sample.start(), ZoneOffset.UTC),
          LocalDate.ofInstant(sample.start().plus(sample.span()), ZoneOffset.UTC));
      GoldJob.Result gold = GoldJob.of(spark, config, days).execute(System.out);
      System.out.println("Gold: " + gold.describe());
      for (ModelRun run : gold.runs()) {
        step(String.format("Gold table %s: %,d rows (%s; tests passed: %s)", run.table(),
            spark.table(run.table()).count(), run.model().materialization().name().toLowerCase(Locale.ROOT),
            run.testsPassed().isEmpty() ? "none declared" : String.join(", ", run.testsPassed())));
        Dataset<Row> table = spark.table(run.table());
        table.orderBy(table.columns()[0], table.columns()[1]).show(8, false);
      }
      step("Maintenance: what each table's policy says is due, with each table's health before and after");
      new MaintenanceJob(spark, config).run(Optional.empty(), Optional.empty(), System.out);
      step("Done. The warehouse is " + config.catalog().warehouse() + "; checkpoints are in "
          + config.checkpointLocation());
      System.out.println("  Run the demo again to add more events: bronze picks up from its checkpoint.");
      return Tributary.OK;
    } finally {
      if (alreadyRunning.isEmpty()) {
        step("Stopping the local Kafka broker");
        broker.stop();
      }
    }
  }

  /** Produces the records before {@code cutoff} ({@code first}) or from it on, creating the topics they go to. */
  private static void produce(TributaryConfig config, List<GeneratedRecord> records, long cutoff, boolean first) {
    // Split where the first record of the third day is, not by each record's time: a late change keeps its older
    // timestamp and must still arrive after the change that overtook it.
    int split = 0;
    while (split < records.size() && records.get(split).timestampMs() < cutoff) {
      split++;
    }
    List<GeneratedRecord> part = first ? records.subList(0, split) : records.subList(split, records.size());
    System.out.print(ProduceCommand.produce(config, part.stream().map(GeneratedRecord::topic).distinct().toList(),
        part.iterator(), 2, 0));
  }

  private static void step(String text) {
    System.out.println("\n==> " + text);
  }
}
