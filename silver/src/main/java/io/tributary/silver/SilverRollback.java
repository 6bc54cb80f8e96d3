package io.tributary.silver;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.SilverCheckpoints;
import io.tributary.common.lakehouse.StreamCommits;
import io.tributary.common.lakehouse.TableAddress;
import io.tributary.common.lakehouse.TableRollback;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;

/**
 * Rolls an entity's silver table back to an earlier snapshot, and its stream with it: the table's commit names a
 * new checkpoint that continues right after the batch that snapshot holds ({@link StreamRewind}), and the entity's
 * quarantine rows go back to what they were then. The stream then applies the bronze changes after that batch again,
 * with the entity's current config: undo a bad mapping, fix the config, and the table catches up correctly.
 */
public final class SilverRollback {
  private final SparkSession spark;
  private final TributaryConfig config;

  public SilverRollback(SparkSession spark, TributaryConfig config) {
    this.spark = spark;
    this.config = config;
  }

  /** Rolls back to {@code target}; returns the checkpoint the entity's stream continues from. */
  public String apply(String table, long target, PrintStream out) {
    SilverEntity entity = SilverRebuild.entityOf(config, table);
    LakehouseSession.registerCatalog(spark, config.catalog());
    String catalog = config.catalog().name();
    String silver = catalog + "." + entity.table();
    String quarantine = catalog + "." + config.silver().quarantine();
    Table silverTable = load(silver);
    StreamRewind.Rewind rewind = StreamRewind.to(config, entity, StreamRewind.writtenBy(silverTable, target, entity),
        StreamRewind.icebergBronze(spark, SilverLayout.of(config).bronze(entity.source())), "rollback",
        spark.sparkContext().hadoopConfiguration());
    var restored = QuarantineRows.asOf(spark, TableAddress.iceberg(catalog, config.silver().quarantine()),
        entity.name(), rewind).localCheckpoint();
    try {
      // 1. The table, its checkpoint, its config and its own state as of then, in one commit; a stream (re)starting
      // now waits for step 3.
      Map<String, String> properties = new LinkedHashMap<>();
      properties.put(SilverCheckpoints.PROPERTY, rewind.checkpoint());
      properties.put(SilverCheckpoints.SWITCHING, "rollback to " + rewind.checkpoint());
      properties.put(SilverCheckpoints.CONFIG, SilverCheckpoints.fingerprint(entity));
      String truncates = ShadowTables.stateAt(silverTable, rewind.committedMillis()).get(Truncates.PROPERTY);
      if (truncates != null) {
        properties.put(Truncates.PROPERTY, truncates);
      }
      TableRollback.apply(silverTable, target, properties, truncates == null ? List.of(Truncates.PROPERTY)
          : List.of());
      out.printf("%s is at snapshot %d again; its stream continues after batch %d from %s%n", silver, target,
          rewind.batch(), rewind.checkpoint());
      // 2. The entity's quarantine rows as they were then, in one commit.
      CheckpointFiles files = new CheckpointFiles(rewind.checkpoint(), spark.sparkContext().hadoopConfiguration());
      CommitMetadata.withCommitProperties(Map.of(StreamCommits.STREAM_ID, files.queryId(), StreamCommits.BATCH_ID,
          String.valueOf(rewind.batch())), () -> {
            restored.writeTo(quarantine).overwrite(col("entity").equalTo(lit(entity.name())));
            return null;
          }, RuntimeException.class);
      out.printf("%s: the rows of entity %s are as they were then (%,d rows)%n", quarantine, entity.name(),
          restored.count());
      // 3. Done.
      silverTable.refresh();
      silverTable.updateProperties().remove(SilverCheckpoints.SWITCHING).commit();
    } finally {
      io.tributary.common.lakehouse.LocalCheckpoints.release(restored);
    }
    return rewind.checkpoint();
  }

  private Table load(String table) {
    try {
      return Spark3Util.loadIcebergTable(spark, table);
    } catch (Exception e) {
      throw new IllegalStateException("cannot load " + table + ": " + e.getMessage(), e);
    }
  }
}
