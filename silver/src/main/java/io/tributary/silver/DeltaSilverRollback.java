package io.tributary.silver;

import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.DeltaTableRollback;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.SilverCheckpoints;
import io.tributary.common.lakehouse.TableAddress;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
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

  /** Rolls back to version {@code target}; returns the checkpoint the entity's stream continues from. */
  public String apply(String table, long target, PrintStream out) {
    SilverEntity entity = SilverRebuild.entityOf(config, table);
    LakehouseSession.registerCatalog(spark, config.catalog());
    SilverLayout layout = SilverLayout.of(config);
    TableAddress silver = layout.silver(entity.table());
    TableAddress quarantine = layout.silver(config.silver().quarantine());
    var hadoop = spark.sparkContext().hadoopConfiguration();
    StreamRewind.Rewind rewind = StreamRewind.to(config, entity,
        DeltaLineage.read(spark, silver).writtenBy(target, entity), StreamRewind.icebergBronze(spark,
            layout.bronze(entity.source())), "rollback", hadoop);
    Dataset<Row> restored = QuarantineRows.asOf(spark, quarantine, entity.name(), rewind)
        .localCheckpoint();
    try {
      // 1. Streams (re)starting now wait; 2. the files and properties of then (RESTORE takes the marker too);
      // 3. the new checkpoint and config, still marked.
      DeltaSwitch.setProperties(spark, silver, Map.of(SilverCheckpoints.SWITCHING, "rollback to "
          + rewind.checkpoint()));
      DeltaTableRollback.restore(spark, silver, target);
      Map<String, String> switched = new LinkedHashMap<>();
      switched.put(SilverCheckpoints.PROPERTY, rewind.checkpoint());
      switched.put(SilverCheckpoints.CONFIG, SilverCheckpoints.fingerprint(entity));
      switched.put(SilverCheckpoints.SWITCHING, "rollback to " + rewind.checkpoint());
      DeltaSwitch.setProperties(spark, silver, switched);
      out.printf("%s is at version %d again; its stream continues after batch %d from %s%n", silver, target,
          rewind.batch(), rewind.checkpoint());
      // 4. The entity's quarantine rows as they were then, in one commit.
      DeltaSwitch.replaceQuarantine(restored, quarantine, entity.name());
      out.printf("%s: the rows of entity %s are as they were then (%,d rows)%n", quarantine, entity.name(),
          restored.count());
      // 5. Done.
      DeltaSwitch.release(spark, silver);
    } finally {
      io.tributary.common.lakehouse.LocalCheckpoints.release(restored);
    }
    return rewind.checkpoint();
  }
}
