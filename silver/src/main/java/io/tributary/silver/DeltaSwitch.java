package io.tributary.silver;

import io.tributary.common.lakehouse.DeltaTableNames;
import io.tributary.common.lakehouse.SilverCheckpoints;
import io.tributary.common.lakehouse.TableAddress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaConcurrentModificationException;
import org.apache.spark.sql.delta.DeltaLog;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The steps a rollback or rebuild of a Delta silver table takes around its content switch: mark the table (its
 * streams stop or wait), put the entity's quarantine rows in place, clear the mark, and drop the shadow tables.
 */
final class DeltaSwitch {
  /** Tries of a property commit that lost to a concurrent commit changing the table's metadata. */
  private static final int PROPERTY_TRIES = 5;

  private DeltaSwitch() {}

  /** Sets {@code properties} in one commit, tried again when a concurrent commit (a stream's batch) won. */
  static void setProperties(SparkSession spark, TableAddress table, Map<String, String> properties) {
    String statement = "ALTER TABLE " + table.sqlName() + " SET TBLPROPERTIES (" + literals(properties) + ")";
    for (int attempt = 1; ; attempt++) {
      try {
        spark.sql(statement);
        return;
      } catch (RuntimeException e) {
        if (!lostToConcurrentCommit(e) || attempt == PROPERTY_TRIES) {
          throw e;
        }
      }
    }
  }

  /**
   * The mark of a switch: the live table takes Tributary's properties of {@code properties} (the mark itself, and the
   * shadow's key, remembered truncates, checkpoint or database) in one commit, so its stream stops at its next batch
   * and a restarted one waits; the Tributary properties it has that {@code properties} lacks go, as they describe the
   * old content.
   */
  static void fence(SparkSession spark, TableAddress live, Map<String, String> properties) {
    Map<String, String> tributary = new LinkedHashMap<>();
    properties.forEach((name, value) -> {
      if (name.startsWith("tributary.")) {
        tributary.put(name, value);
      }
    });
    setProperties(spark, live, tributary);
    List<String> stale = SilverTable.open(spark, live).properties().keySet().stream()
        .filter(name -> name.startsWith("tributary.") && !tributary.containsKey(name)).toList();
    if (!stale.isEmpty()) {
      spark.sql("ALTER TABLE " + live.sqlName() + " UNSET TBLPROPERTIES IF EXISTS (" + stale.stream()
          .map(JsonFields::literal).collect(Collectors.joining(", ")) + ")");
    }
  }

  /** Table properties as SQL: {@code 'key' = 'value', ...}. */
  static String literals(Map<String, String> properties) {
    return properties.entrySet().stream()
        .map(entry -> JsonFields.literal(entry.getKey()) + " = " + JsonFields.literal(entry.getValue()))
        .collect(Collectors.joining(", "));
  }

  /** The entity's rows of the quarantine table replaced by {@code rows}, in one commit. */
  static void replaceQuarantine(Dataset<Row> rows, TableAddress quarantine, String entity) {
    rows.write().format("delta").mode("overwrite")
        .option("replaceWhere", "entity = '" + entity.replace("'", "''") + "'").save(quarantine.deltaPath());
  }

  /** The mark removed: streams may commit to the table again. */
  static void release(SparkSession spark, TableAddress table) {
    spark.sql("ALTER TABLE " + table.sqlName() + " UNSET TBLPROPERTIES IF EXISTS ('" + SilverCheckpoints.SWITCHING
        + "')");
  }

  /** A shadow table gone: its name in the session catalog and its folder. */
  static void drop(SparkSession spark, TableAddress table) {
    String name = DeltaTableNames.of(table.name());
    if (spark.catalog().tableExists(name)) {
      spark.sql("DROP TABLE " + name); // an external table: Spark leaves its folder
    }
    Path folder = new Path(table.deltaPath());
    try {
      folder.getFileSystem(spark.sessionState().newHadoopConf()).delete(folder, true);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + folder, e);
    }
  }

  /** Whether {@code e} is Delta's conflict with a commit that won the race (an append, a delete, new metadata). */
  static boolean lostToConcurrentCommit(Throwable e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof DeltaConcurrentModificationException) {
        return true;
      }
    }
    return false;
  }

  /** The table's newest version. */
  static long version(SparkSession spark, TableAddress table) {
    return DeltaLog.forTable(spark, table.deltaPath()).update(false, Option.empty(), Option.empty()).version();
  }

  /** The table's properties as of {@code version}. */
  static Map<String, String> propertiesAt(SparkSession spark, TableAddress table, long version) {
    return CollectionConverters.asJava(DeltaLog.forTable(spark, table.deltaPath())
        .getSnapshotAt(version, Option.empty(), Option.empty(), false).metadata().configuration());
  }

  /** The rows of a version, counted from the log's file statistics where Delta can (no data file read). */
  static long rowsAt(SparkSession spark, TableAddress table, long version) {
    return spark.read().format("delta").option("versionAsOf", version).load(table.deltaPath()).count();
  }
}
