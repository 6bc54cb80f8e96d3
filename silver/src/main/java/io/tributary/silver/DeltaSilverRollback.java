package io.tributary.silver;

import io.delta.tables.DeltaTable;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.DeltaCommitMetadata;
import io.tributary.common.lakehouse.DeltaCommitMetadata.Commit;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.SilverCheckpoints;
import io.tributary.common.lakehouse.StreamCommits;
import io.tributary.common.lakehouse.TableAddress;
import io.tributary.common.lakehouse.TableRollback;
import java.io.PrintStream;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Rolls an entity's Delta silver table back to an earlier version, and its stream with it, as {@link SilverRollback}
 * does for Iceberg: Delta's {@code RESTORE} brings back the files and the table's properties of then (the truncates
 * state included), the table then names a new checkpoint that continues right after the batch that version holds
 * ({@link StreamRewind}), and the entity's quarantine rows go back to what they were then.
 *
 * <p>Two things differ from Iceberg. Delta's history is a line: the versions after the target stay in it after the
 * RESTORE, so the batch a version holds is found along its lineage (a RESTORE jumps back to the version it
 * restored). And RESTORE does not restore the stream's transaction versions: the new checkpoint has a new query id,
 * so Delta does not skip the re-applied batches as already committed.
 */
public final class DeltaSilverRollback {
  private final SparkSession spark;
  private final TributaryConfig config;

  public DeltaSilverRollback(SparkSession spark, TributaryConfig config) {
    this.spark = spark;
    this.config = config;
  }

  /** The version a rollback of {@code table} targets: {@code version} if the log has it, or the one shown at a time. */
  public long target(String table, OptionalLong version, Optional<Instant> asOf) {
    List<Commit> history = history(address(table).deltaPath());
    if (version.isPresent()) {
      if (history.stream().noneMatch(entry -> entry.version() == version.getAsLong())) {
        throw new IllegalArgumentException(table + " has no version " + version.getAsLong() + " in its log (kept: "
            + history.get(history.size() - 1).version() + " to " + history.get(0).version() + "); see DESCRIBE"
            + " HISTORY " + address(table).sqlName());
      }
      return version.getAsLong();
    }
    Instant at = asOf.orElseThrow(() -> new IllegalArgumentException("give a version or a time"));
    return history.stream().filter(entry -> !entry.time().isAfter(at)).mapToLong(Commit::version).max()
        .orElseThrow(() -> new IllegalArgumentException(table + " has no version from " + at + " or before in its"
            + " log; see DESCRIBE HISTORY " + address(table).sqlName()));
  }

  /** What rolling {@code table} back to {@code target} changes. */
  public TableRollback.Preview preview(String table, long target) {
    List<Commit> history = history(address(table).deltaPath());
    Commit current = history.get(0);
    Commit then = history.stream().filter(entry -> entry.version() == target).findFirst().orElseThrow();
    return TableRollback.compare(spark, sql(address(table)), current.version(), current.time(), target, then.time());
  }

  /** Rolls back to version {@code target}; returns the checkpoint the entity's stream continues from. */
  public String apply(String table, long target, PrintStream out) {
    SilverEntity entity = SilverRebuild.entityOf(config, table);
    LakehouseSession.registerCatalog(spark, config.catalog());
    SilverLayout layout = SilverLayout.of(config);
    TableAddress silver = layout.silver(entity.table());
    TableAddress quarantine = layout.silver(config.silver().quarantine());
    var hadoop = spark.sparkContext().hadoopConfiguration();
    StreamRewind.Rewind rewind = StreamRewind.to(config, entity, writtenBy(silver, target, entity),
        icebergBronze(layout.bronze(entity.source())), "rollback", hadoop);
    Dataset<Row> restored = quarantineAsOf(quarantine, entity.name(), rewind.committedMillis()).localCheckpoint();
    try {
      // 1. Streams (re)starting now wait; 2. the files and properties of then (RESTORE takes the marker too);
      // 3. the new checkpoint and config, still marked.
      setProperties(silver, Map.of(SilverCheckpoints.SWITCHING, "rollback to " + rewind.checkpoint()));
      DeltaTable.forPath(spark, silver.deltaPath()).restoreToVersion(target);
      Map<String, String> switched = new LinkedHashMap<>();
      switched.put(SilverCheckpoints.PROPERTY, rewind.checkpoint());
      switched.put(SilverCheckpoints.CONFIG, SilverCheckpoints.fingerprint(entity));
      switched.put(SilverCheckpoints.SWITCHING, "rollback to " + rewind.checkpoint());
      setProperties(silver, switched);
      out.printf("%s is at version %d again; its stream continues after batch %d from %s%n", silver, target,
          rewind.batch(), rewind.checkpoint());
      // 4. The entity's quarantine rows as they were then, in one commit.
      restored.write().format("delta").mode("overwrite")
          .option("replaceWhere", "entity = '" + entity.name().replace("'", "''") + "'").save(quarantine.deltaPath());
      out.printf("%s: the rows of entity %s are as they were then (%,d rows)%n", quarantine, entity.name(),
          restored.count());
      // 5. Done.
      spark.sql("ALTER TABLE " + sql(silver) + " UNSET TBLPROPERTIES IF EXISTS ('" + SilverCheckpoints.SWITCHING
          + "')");
    } finally {
      io.tributary.common.lakehouse.LocalCheckpoints.release(restored);
    }
    return rewind.checkpoint();
  }

  /**
   * The stream commit whose content {@code target} shows: the newest commit of a stream at or before it along its
   * lineage, where a RESTORE stands for the version it restored.
   */
  private StreamRewind.WrittenBy writtenBy(TableAddress silver, long target, SilverEntity entity) {
    long wanted = target;
    for (Commit entry : history(silver.deltaPath())) {
      if (entry.version() > wanted) {
        continue;
      }
      if (entry.operation().equals("RESTORE")) {
        wanted = restoredVersion(entry, silver);
        continue;
      }
      if (entry.recorded().containsKey(StreamCommits.BATCH_ID)) {
        return new StreamRewind.WrittenBy(entry.recorded().get(StreamCommits.STREAM_ID),
            Long.parseLong(entry.recorded().get(StreamCommits.BATCH_ID)), entry.time().toEpochMilli());
      }
      wanted = entry.version() - 1;
    }
    throw StreamRewind.noStreamCommit("version " + target, silver.toString(), entity);
  }

  private long restoredVersion(Commit restore, TableAddress silver) {
    String version = restore.parameters().get("version");
    if (version != null && !version.isBlank() && !version.equals("null")) {
      return Long.parseLong(version);
    }
    Instant at = Instant.parse(restore.parameters().get("timestamp").replace(' ', 'T') + (restore.parameters()
        .get("timestamp").endsWith("Z") ? "" : "Z"));
    return target(silver.name().toString(), OptionalLong.empty(), Optional.of(at));
  }

  /** The table's history, newest first, with what silver's stream commits recorded. */
  private List<Commit> history(String path) {
    return DeltaCommitMetadata.history(spark, path, 0, StreamCommits.STREAM_ID);
  }

  private TableAddress address(String table) {
    return SilverLayout.of(config).silver(SilverRebuild.entityOf(config, table).table());
  }

  /** The quarantine rows of the entity as of a time: the newest version of the quarantine table from then or before. */
  private Dataset<Row> quarantineAsOf(TableAddress quarantine, String entity, long millis) {
    Dataset<Row> now = spark.read().format("delta").load(quarantine.deltaPath());
    OptionalLong version = history(quarantine.deltaPath()).stream()
        .filter(entry -> entry.time().toEpochMilli() <= millis).mapToLong(Commit::version).max();
    if (version.isEmpty()) {
      return now.limit(0); // the quarantine table came later: nothing was quarantined then
    }
    return spark.read().format("delta").option("versionAsOf", version.getAsLong()).load(quarantine.deltaPath())
        .where(org.apache.spark.sql.functions.col("entity").equalTo(entity));
  }

  private Optional<org.apache.iceberg.Table> icebergBronze(TableAddress bronze) {
    if (bronze.format() == TableFormat.DELTA) {
      return Optional.empty();
    }
    try {
      return Optional.of(org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark, bronze.sqlName()));
    } catch (Exception e) {
      throw new IllegalStateException("cannot load " + bronze.sqlName() + ": " + e.getMessage(), e);
    }
  }

  private void setProperties(TableAddress table, Map<String, String> properties) {
    spark.sql("ALTER TABLE " + sql(table) + " SET TBLPROPERTIES (" + properties.entrySet().stream()
        .map(entry -> JsonFields.literal(entry.getKey()) + " = " + JsonFields.literal(entry.getValue()))
        .collect(Collectors.joining(", ")) + ")");
  }

  private static String sql(TableAddress table) {
    return "delta.`" + table.deltaPath().replace("`", "``") + "`";
  }
}
