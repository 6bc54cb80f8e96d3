package io.tributary.common.lakehouse;

import io.tributary.common.config.CatalogConfig;
import io.tributary.common.config.LocalFolders;
import io.tributary.common.config.TributaryConfig;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * Builds the SparkSession every job uses: both table formats' extensions, the Iceberg catalog of the config, and
 * Delta in {@code spark_catalog}. The master is never set here: spark-submit (or bin/tributary) sets it.
 */
public final class LakehouseSession {
  static final String EXTENSIONS =
      "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions,io.delta.sql.DeltaSparkSessionExtension";

  private LakehouseSession() {}

  /** A builder with everything set but the master; {@code job} names the application (tributary-bronze). */
  public static SparkSession.Builder builder(TributaryConfig config, String job) {
    SparkSession.Builder builder = SparkSession.builder().appName(config.appName() + "-" + job);
    staticSettings().forEach(builder::config);
    catalogSettings(config.catalog()).forEach(builder::config);
    sessionCatalogFolder(config).ifPresent(folder -> builder.config(WAREHOUSE_DIR, folder));
    config.spark().forEach(builder::config);
    return builder;
  }

  static final String WAREHOUSE_DIR = "spark.sql.warehouse.dir";
  static final String CODEGEN_CACHE_ENTRIES = "spark.sql.codegen.cache.maxEntries";
  static final String DELTA_SNAPSHOT_PARTITIONS = "spark.databricks.delta.snapshotPartitions";

  /**
   * Spark's session catalog creates its folder ({@code spark-warehouse}) in the working folder when a session
   * starts, where a user finds an empty folder nobody explained. Tributary keeps no table there: with local
   * checkpoints it goes next to them (the demo's: {@code var/spark-warehouse}); one set by spark-submit or in
   * {@code tributary.spark} wins, and on other file systems Spark's default stays.
   */
  static java.util.Optional<String> sessionCatalogFolder(TributaryConfig config) {
    if (System.getProperty(WAREHOUSE_DIR) != null) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.ofNullable(LocalFolders.of(config).get("tributary.checkpoint-location"))
        .map(checkpoints -> checkpoints.resolveSibling("spark-warehouse").toString());
  }

  /** Settings that must be in place before the session starts (extensions cannot be added later). */
  public static Map<String, String> staticSettings() {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("spark.sql.extensions", EXTENSIONS);
    settings.put("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog");
    // Kafka timestamps and day partitions must not depend on the driver's time zone.
    settings.put("spark.sql.session.timeZone", "UTC");
    // Local paths without a chmod and a readlink process per file (see LocalDiskFileSystem).
    settings.put("spark.hadoop.fs.file.impl", LocalDiskFileSystem.class.getName());
    settings.put("spark.hadoop.fs.AbstractFileSystem.file.impl", LocalDiskFs.class.getName());
    // Every streaming query runs in a clone of its session, and with artifact isolation on (Spark's default) each
    // session's tasks get a class loader of their own on the executors. Spark caches generated code per class loader,
    // so every query compiled every class again (about 40 Janino compiles per silver --once run, and per table
    // session of a database stream), then ran them interpreted until the JIT caught up. Tributary adds no
    // session artifacts (jars, files) to isolate.
    settings.put("spark.sql.artifact.isolation.enabled", "false");
    // Spark keeps the classes it compiles for a query plan in a cache of 100 by default. A silver stream runs a few
    // dozen plans per batch (decode, checks, quarantine, MERGE, and Delta's own queries), so with three entities the
    // cache was too small to hold one round: measured on SilverMergeIT on Delta, 3,906 compiles of about 17 ms (a
    // third of the run's CPU), 992 with room for 1,000 classes, and the Delta test's time from 185 s to 137 s.
    settings.put(CODEGEN_CACHE_ENTRIES, "1000");
    // Every Delta write that names its transaction (bronze's and silver's batches do, for effectively-once) makes
    // Delta rebuild the table's snapshot state in a Spark job of 50 tasks by default, each generating the code that
    // reads the log's actions: on 2 cores a quarter of bronze's steady-state CPU on Delta. Two tasks per driver core
    // (at least 4): bronze on Delta, 100,000-record batches, 47,000-55,000 -> 67,000 records/s (BENCHMARKS.md).
    // tributary.spark sets another value.
    settings.put(DELTA_SNAPSHOT_PARTITIONS, String.valueOf(Math.max(4,
        2 * Runtime.getRuntime().availableProcessors())));
    if (!compilesHugeMethods()) {
      // HotSpot never compiles a method over 8,000 bytes of bytecode unless started with -XX:-DontCompileHugeMethods,
      // and silver's decode stage generates such a method: it ran interpreted, at half the speed. Without the flag,
      // Spark splits a stage whose method is that large instead (its own advice for HotSpot).
      settings.put("spark.sql.codegen.hugeMethodLimit", "8000");
    }
    return settings;
  }

  /** Whether this JVM compiles methods of any size (-XX:-DontCompileHugeMethods, which bin/tributary sets). */
  static boolean compilesHugeMethods() {
    try {
      return "false".equals(java.lang.management.ManagementFactory
          .getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class)
          .getVMOption("DontCompileHugeMethods").getValue());
    } catch (RuntimeException e) {
      return false; // not HotSpot, or the option is unknown: assume the default
    }
  }

  /**
   * Registers the config's catalog on a running session (catalogs load lazily, so this works until the catalog is
   * first used). Tests use it to give each test its own warehouse in one shared session.
   */
  public static void registerCatalog(SparkSession spark, CatalogConfig catalog) {
    catalogSettings(catalog).forEach((key, value) -> spark.conf().set(key, value));
  }

  static Map<String, String> catalogSettings(CatalogConfig catalog) {
    String prefix = "spark.sql.catalog." + catalog.name();
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put(prefix, "org.apache.iceberg.spark.SparkCatalog");
    switch (catalog.type()) {
      case HADOOP, HIVE, REST -> settings.put(prefix + ".type", catalog.type().name().toLowerCase(java.util.Locale.ROOT));
      case JDBC -> {
        settings.put(prefix + ".catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog");
        // Without view support (the V0 layout of its tables), the JDBC catalog throws on every name that is not a
        // table, since Spark then looks for a view: a table not created yet fails instead of reading as absent. V1
        // adds one column to its table, migrating an existing catalog in place.
        settings.put(prefix + ".jdbc.schema-version", "V1");
      }
      case GLUE -> settings.put(prefix + ".catalog-impl", "org.apache.iceberg.aws.glue.GlueCatalog");
    }
    if (catalog.warehouse() != null) {
      settings.put(prefix + ".warehouse", catalog.warehouse());
    }
    // Streams commit through their own cloned sessions (and other jobs through other JVMs); a cached table would
    // show this session a stale snapshot for up to 30 s. Users may turn the cache back on in properties.
    settings.put(prefix + ".cache-enabled", "false");
    catalog.properties().forEach((key, value) -> settings.put(prefix + "." + key, value));
    return settings;
  }
}
