package io.tributary.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigRenderOptions;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.testing.SharedSpark;
import io.tributary.localstack.GeneratedRecord;
import io.tributary.localstack.GeneratorOptions;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.LocalPostgres;
import io.tributary.localstack.LocalS3;
import io.tributary.localstack.LocalSparkCluster;
import io.tributary.localstack.ShopEventGenerator;
import io.tributary.localstack.ShopProducer;
import io.tributary.localstack.SparkDistribution;
import io.tributary.localstack.Topics;
import io.tributary.localstack.testing.SharedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded jar under {@code spark-submit} on a Spark standalone cluster (a master and two workers, each a JVM of its
 * own; executors, and in cluster deploy mode the driver, in JVMs the workers start), in client and in cluster deploy
 * mode: bronze, silver and gold on the demo's events in both modes, maintain and a rebuild in cluster mode, with the
 * tables equal to what a local run of the same commands makes (in the test's own JVM); and a failed run and a bad
 * command line reported as such in both modes. The cluster-mode
 * run is a production layout: Iceberg's JDBC catalog on PostgreSQL, table files on S3 through Iceberg's
 * {@code S3FileIO}, checkpoints on S3 through Hadoop's S3A (an S3 endpoint from S3Proxy), and the S3 client and JDBC
 * driver jars added with {@code --jars}; its maintenance removes an orphan file from S3. One cluster, one S3
 * endpoint, one database and one set of events for every test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith({SharedSpark.class, SharedKafka.class})
class ClusterDeployModesIT {
  /** The demo's events at a fixed time, so that the gold interval is known. */
  private static final Instant NOW = Instant.parse("2026-11-20T00:00:00Z");
  /** Topic names of this test's own, on the broker the test JVM shares. */
  private static final String PREFIX = "cluster-";
  private static final String BUCKET = "lake";
  /** The S3 lakehouse's catalog, named apart from the local ones so that the test's session can read it too. */
  private static final String S3_CATALOG = "s3lake";
  private static final List<String> TABLES = List.of("bronze.orders", "bronze.customers", "silver.orders",
      "silver.customers", "silver.customer_history", "gold.daily_revenue", "gold.customer_lifetime_value",
      "gold.country_value", "gold.orders_by_status");
  /** Columns that record when or in which run a row was written, which two runs never share. */
  private static final List<String> RUN_COLUMNS = List.of("ingested_at", "_updated_at", "quarantined_at");

  /** Everything the test makes on disk: the cluster's layout and work folders, S3's bucket, the lakehouses. */
  private Path home;
  private LocalSparkCluster cluster;
  private Path jar;
  private String bootstrapServers;
  private LocalPostgres postgres;
  private LocalS3 s3;

  @BeforeAll
  void startTheClusterAndProduceTheDemoEvents(LocalKafkaBroker broker, @TempDir Path folder) throws Exception {
    home = folder;
    Path target = Path.of("target").toAbsolutePath();
    jar = SparkDistribution.applicationJar(target);
    cluster = LocalSparkCluster.start(home.resolve("cluster"), SparkDistribution.jars(target), ChildProcess.testJvmFlags(),
        new LocalSparkCluster.Shape(2, 2, "3g"));
    bootstrapServers = broker.bootstrapServers();
    postgres = LocalPostgres.start();
    s3 = LocalS3.start(home.resolve("s3"), List.of(BUCKET));

    GeneratorOptions sample = GeneratorOptions.demo(NOW);
    List<GeneratedRecord> records = new ArrayList<>();
    ShopEventGenerator.records(sample).forEachRemaining(records::add);
    List<GeneratedRecord> renamed = records.stream().map(record -> new GeneratedRecord(PREFIX + record.topic(),
        record.key(), record.value(), record.timestampMs(), record.kind())).toList();
    Map<String, Object> client = Map.of("bootstrap.servers", bootstrapServers);
    Topics.create(client, renamed.stream().map(GeneratedRecord::topic).distinct().toList(), 2, Map.of());
    ShopProducer.send(client, renamed.iterator(), 0);
  }

  @AfterAll
  void stopTheClusterAndItsServers() {
    for (AutoCloseable started : new AutoCloseable[] {cluster, s3, postgres}) {
      if (started != null) {
        try {
          started.close();
        } catch (Exception e) {
          // the others still stop
        }
      }
    }
  }

  @Test
  void clientAndClusterDeployModesBuildWhatALocalRunBuilds(SparkSession spark) throws Exception {
    // The reference: the same commands run locally, in this test's JVM and session, into a catalog of its own.
    // Maintenance and a rebuild change files, not rows: the reference needs only the commands that make rows.
    Path local = lakehouse("local");
    for (List<String> command : pipeline().subList(0, 3)) {
      runLocally(local, command);
    }
    // Client mode runs the commands that make rows; maintenance and a rebuild run in cluster mode, on S3.
    Path client = lakehouse("client");
    for (List<String> command : pipeline().subList(0, 3)) {
      assertThat(submitInClientMode(client, command).exitCode()).isZero();
    }
    Path clusterMode = s3Lakehouse("cluster-mode");
    // A file no snapshot references, as a killed write leaves, old enough for maintenance to remove.
    Path orphan = s3.bucketFolder(BUCKET).resolve("cluster-mode/warehouse/silver/orders/data/00000-orphan.parquet");
    Files.createDirectories(orphan.getParent());
    Files.writeString(orphan, "left by a killed write");
    Files.setLastModifiedTime(orphan, FileTime.from(NOW.minus(Duration.ofDays(5))));
    for (List<String> command : pipeline()) {
      DriverRun run = submitInClusterMode(clusterMode, command, s3Jars());
      assertThat(run.state()).as("driver of %s:\n%s", command, run.output()).isEqualTo("FINISHED");
      if (command.get(0).equals("maintain")) {
        assertThat(run.output()).contains("1 orphan files deleted");
      }
    }
    assertThat(orphan).doesNotExist();
    assertThat(s3.bucketFolder(BUCKET).resolve("cluster-mode/checkpoints")).isDirectory();
    String localCatalog = registerCatalog(spark, local);
    String clientCatalog = registerCatalog(spark, client);
    String s3Catalog = registerCatalog(spark, clusterMode);
    for (String table : TABLES) {
      Dataset<Row> expected = withoutRunColumns(spark.table(localCatalog + "." + table));
      assertThat(expected.count()).as(table).isPositive();
      assertSameRows(table + " (client mode)", expected, withoutRunColumns(spark.table(clientCatalog + "." + table)));
      assertSameRows(table + " (cluster mode, S3)", expected, withoutRunColumns(spark.table(s3Catalog + "." + table)));
    }
  }

  @Test
  void aFailedRunAndABadCommandLineAreReportedInBothDeployModes() throws Exception {
    Path lake = lakehouse("failing");
    // A gold model whose test fails: the run fails, nothing is committed. It reads no table, so that no bronze or
    // silver run is needed first.
    Path models = Files.createDirectories(home.resolve("failing-models"));
    Files.writeString(models.resolve("no_orders.sql"), "-- materialized: table\n-- test: assert(orders < 0)\n"
        + "SELECT 0 AS orders\n");
    Files.writeString(lake.resolve("lakehouse.conf"), Files.readString(lake.resolve("lakehouse.conf"))
        + "tributary.gold.models = \"" + models + "\"\n");

    List<String> failingGold = List.of("gold", "--date", "2026-11-18");
    ClientRun client = submitInClientMode(lake, failingGold);
    assertThat(client.exitCode()).as(client.output()).isEqualTo(Tributary.FAILED);
    assertThat(client.output()).contains("tributary gold failed: ").contains("no_orders");
    DriverRun driver = submitInClusterMode(lake, failingGold, List.of());
    assertThat(driver.state()).as(driver.output()).isEqualTo("FAILED");
    assertThat(driver.output()).contains("tributary gold failed: ").contains("no_orders")
        .contains("tributary ended with exit code 1 (the run failed)");

    List<String> badDate = List.of("gold", "--date", "18.11.2026");
    ClientRun badClient = submitInClientMode(lake, badDate);
    assertThat(badClient.exitCode()).as(badClient.output()).isEqualTo(Tributary.USAGE);
    assertThat(badClient.output()).contains("--date");
    DriverRun badDriver = submitInClusterMode(lake, badDate, List.of());
    assertThat(badDriver.state()).as(badDriver.output()).isEqualTo("FAILED");
    assertThat(badDriver.output()).contains("--date")
        .contains("tributary ended with exit code 2 (fix the command line, configuration or gold models)");
  }

  /** The demo's pipeline as a scheduler runs it, one command per spark-submit. */
  private static List<List<String>> pipeline() {
    LocalDate last = NOW.atZone(ZoneOffset.UTC).toLocalDate();
    return List.of(List.of("bronze", "--once"), List.of("silver", "--once"),
        List.of("gold", "--from", last.minusDays(3).toString(), "--to", last.toString()),
        List.of("maintain"), List.of("rebuild", "--table", "silver.customers"));
  }

  /**
   * A lakehouse of its own (warehouse, checkpoints, config, a catalog named {@code cluster_it_<name>} that the
   * test's session can read beside the others): the demo's config for its orders and customers (the
   * inventory database is left out, which DemoIT and DatabaseIT cover, to keep the many cold JVMs here short), on
   * this test's topics.
   */
  private Path lakehouse(String name) throws Exception {
    Path lake = Files.createDirectories(home.resolve(name));
    Config demo = ConfigFactory.parseFile(Path.of("../conf/application.conf").toFile()).resolve()
        .withoutPath("tributary.bronze.sources.inventory").withoutPath("tributary.silver.databases");
    Files.writeString(lake.resolve("lakehouse.conf"), "tributary = " + demo.getObject("tributary").render(ConfigRenderOptions.concise()) + "\n"
        + "tributary.catalog.name = cluster_it_" + name.replace('-', '_') + "\n"
        + "tributary.catalog.warehouse = \"" + lake.resolve("warehouse") + "\"\n"
        + "tributary.checkpoint-location = \"" + lake.resolve("checkpoints") + "\"\n"
        + "tributary.kafka.bootstrap-servers = \"" + bootstrapServers + "\"\n"
        + "tributary.bronze.sources.orders.topic = \"" + PREFIX + GeneratorOptions.ORDERS_TOPIC + "\"\n"
        + "tributary.bronze.sources.customers.topic = \"" + PREFIX + GeneratorOptions.CUSTOMERS_TOPIC + "\"\n"
        + "tributary.gold.models = \"" + Path.of("../gold/models").toAbsolutePath().normalize() + "\"\n");
    return lake;
  }

  /**
   * A lakehouse as a production cluster has it: the JDBC catalog on PostgreSQL, tables and checkpoints on S3, the
   * S3 endpoint and its keys in the config's catalog properties and Spark settings.
   */
  private Path s3Lakehouse(String name) throws Exception {
    Path lake = lakehouse(name);
    StringBuilder text = new StringBuilder(Files.readString(lake.resolve("lakehouse.conf")))
        .append("tributary.catalog {\n  name = ").append(S3_CATALOG).append("\n  type = jdbc\n")
        .append("  warehouse = \"s3://").append(BUCKET).append('/').append(name).append("/warehouse\"\n")
        .append("  properties {\n    uri = \"").append(postgres.jdbcUrl("postgres")).append("\"\n")
        .append("    \"jdbc.user\" = postgres\n");
    s3.icebergCatalogProperties().forEach((key, value) ->
        text.append("    \"").append(key).append("\" = \"").append(value).append("\"\n"));
    text.append("  }\n}\n")
        .append("tributary.checkpoint-location = \"s3a://").append(BUCKET).append('/').append(name)
        .append("/checkpoints\"\n")
        .append("tributary.spark {\n");
    s3.hadoopSettings().forEach((key, value) ->
        text.append("  \"").append(key).append("\" = \"").append(value).append("\"\n"));
    text.append("}\n");
    Files.writeString(lake.resolve("lakehouse.conf"), text.toString());
    return lake;
  }

  /**
   * What a cluster adds for S3 and the JDBC catalog (the README's list): Iceberg's AWS bundle (S3FileIO), Hadoop's
   * S3A with the AWS SDK modules and Apache HttpClient it needs beyond the bundle, and PostgreSQL's JDBC driver; taken from this test's
   * classpath.
   */
  private static List<Path> s3Jars() {
    List<String> wanted = List.of("/iceberg-aws-bundle-", "/hadoop-aws-", "/s3-transfer-manager-",
        "/apache-client-", "/httpclient-", "/httpcore-", "/postgresql-");
    List<Path> jars = Stream.of(System.getProperty("java.class.path").split(":"))
        .filter(entry -> wanted.stream().anyMatch(entry::contains)).map(Path::of).toList();
    assertThat(jars).as("the S3 and JDBC jars on the test classpath").hasSize(wanted.size());
    return jars;
  }

  private static void runLocally(Path lake, List<String> command) {
    long start = System.nanoTime();
    int code = new Tributary().run(withConfig(lake, command));
    report("local", command, start);
    assertThat(code).as("%s run locally", command).isZero();
  }

  private record ClientRun(int exitCode, String output) {}

  private ClientRun submitInClientMode(Path lake, List<String> command) throws Exception {
    Path log = lake.resolve("client-" + System.nanoTime() + ".log");
    List<String> arguments = new ArrayList<>(List.of("--deploy-mode", "client"));
    arguments.addAll(applicationArguments(lake, command));
    long start = System.nanoTime();
    Process submit = cluster.submit(arguments, log);
    assertThat(submit.waitFor(5, TimeUnit.MINUTES)).as("%s ended in time", command).isTrue();
    report("client mode", command, start);
    return new ClientRun(submit.exitValue(), Files.readString(log));
  }

  private record DriverRun(String state, String output) {}

  private DriverRun submitInClusterMode(Path lake, List<String> command, List<Path> jars) throws Exception {
    Path log = lake.resolve("cluster-" + System.nanoTime() + ".log");
    // spark-submit returns once the master has the driver; the test then asks the master how the driver ended.
    List<String> arguments = new ArrayList<>(List.of("--deploy-mode", "cluster",
        "--conf", "spark.standalone.submit.waitAppCompletion=false",
        "--driver-java-options", String.join(" ", ChildProcess.testJvmFlags())));
    if (!jars.isEmpty()) {
      arguments.add("--jars");
      arguments.add(String.join(",", jars.stream().map(Path::toString).toList()));
    }
    arguments.addAll(applicationArguments(lake, command));
    long start = System.nanoTime();
    Process submit = cluster.submit(arguments, log);
    assertThat(submit.waitFor(2, TimeUnit.MINUTES)).as("spark-submit of %s returned", command).isTrue();
    String submitter = Files.readString(log);
    Matcher submitted = Pattern.compile("Driver successfully submitted as (driver-[0-9-]+)").matcher(submitter);
    assertThat(submitted.find()).as("spark-submit submitted a driver:\n%s", submitter).isTrue();
    String state = cluster.awaitDriver(submitted.group(1), Duration.ofMinutes(5));
    report("cluster mode", command, start);
    Path driver = cluster.driverFolder(submitted.group(1)).orElseThrow();
    String output = Files.readString(driver.resolve("stderr")) + Files.readString(driver.resolve("stdout"));
    return new DriverRun(state, output);
  }

  /** One line per run, so that the test's log shows where its minutes go. */
  private static void report(String mode, List<String> command, long startNanos) {
    System.out.printf("ClusterDeployModesIT: %s %s took %.1f s%n", mode, String.join(" ", command),
        (System.nanoTime() - startNanos) / 1e9);
  }

  /** What follows spark-submit's deploy mode: the application's settings, the jar, the command. */
  private List<String> applicationArguments(Path lake, List<String> command) {
    List<String> arguments = new ArrayList<>(List.of("--class", Tributary.class.getName(),
        "--conf", "spark.cores.max=2", "--conf", "spark.executor.cores=2", "--conf", "spark.executor.memory=1g",
        "--driver-memory", "1g", "--conf", "spark.ui.enabled=false",
        "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.driver.bindAddress=127.0.0.1",
        "--conf", "spark.executor.extraJavaOptions=" + String.join(" ", ChildProcess.testJvmFlags()),
        jar.toString()));
    arguments.addAll(withConfig(lake, command));
    return arguments;
  }

  private static List<String> withConfig(Path lake, List<String> command) {
    List<String> arguments = new ArrayList<>(command);
    arguments.add(1, "--config");
    arguments.add(2, lake.resolve("lakehouse.conf").toString());
    return arguments;
  }

  /** A lakehouse's catalog, registered in the test's session under the name its config gives it. */
  private static String registerCatalog(SparkSession spark, Path lake) {
    TributaryConfig config = TributaryConfig.load(lake.resolve("lakehouse.conf"));
    LakehouseSession.registerCatalog(spark, config.catalog());
    return config.catalog().name();
  }

  private static Dataset<Row> withoutRunColumns(Dataset<Row> rows) {
    return rows.drop(RUN_COLUMNS.stream().filter(Arrays.asList(rows.columns())::contains).toArray(String[]::new));
  }

  private static void assertSameRows(String what, Dataset<Row> expected, Dataset<Row> actual) {
    assertThat(actual.columns()).as(what).containsExactly(expected.columns());
    assertThat(actual.exceptAll(expected).collectAsList()).as("%s: rows a local run does not have", what).isEmpty();
    assertThat(expected.exceptAll(actual).collectAsList()).as("%s: rows of a local run missing", what).isEmpty();
  }

}
