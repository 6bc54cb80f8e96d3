package io.tributary.maintenance;

import io.tributary.common.config.MaintenanceConfig.Layer;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.StreamCommits;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;

/**
 * What snapshot expiry must not remove, next to running streams: the bronze snapshots a silver stream has not read
 * yet, and each silver stream's latest commit (by which it recognises a batch it replays after a crash). On Delta,
 * what VACUUM must keep: the files of the bronze versions a silver stream has not read yet.
 */
final class ExpiryGuard {
  private final SparkSession spark;
  private final TributaryConfig config;

  ExpiryGuard(SparkSession spark, TributaryConfig config) {
    this.spark = spark;
    this.config = config;
  }

  /**
   * The earliest snapshot expiry must keep. Bronze: where the silver streams reading it resume (each stream's
   * initial offset is first moved up to there, see {@link StreamPositions#moveInitialOffset}). Silver: each
   * stream's latest commit.
   */
  OptionalLong keepFrom(MaintainedTable table, Table iceberg, PrintStream out) {
    if (table.layer() == Layer.SILVER) {
      return latestStreamCommits(iceberg, out);
    }
    if (table.layer() != Layer.BRONZE) {
      return OptionalLong.empty();
    }
    var hadoop = spark.sparkContext().hadoopConfiguration();
    Map<String, Long> positions = new LinkedHashMap<>();
    StreamPositions.readersOf(config, table.name(), this::silverProperties).forEach((stream, checkpoint) -> {
      StreamPositions.moveInitialOffset(checkpoint, hadoop).ifPresent(from -> out.println("      " + stream
          + ": initial offset moved from snapshot " + from + " to where it resumes"));
      StreamPositions.position(checkpoint, hadoop).ifPresent(snapshot -> positions.put(stream, snapshot));
    });
    Optional<Map.Entry<String, Long>> oldest = ExpiryCutoff.oldestPosition(positions,
        ExpiryCutoff.commitTimes(iceberg));
    oldest.ifPresent(entry -> out.println("      " + entry.getKey() + " resumes at snapshot " + entry.getValue()
        + " (of " + positions.size() + " stream" + (positions.size() == 1 ? "" : "s") + " reading this table)"));
    return oldest.map(entry -> OptionalLong.of(entry.getValue())).orElse(OptionalLong.empty());
  }

  /**
   * How long VACUUM of a Delta table keeps unreferenced files: {@code policy}, or longer on a bronze table where a
   * silver stream resumes at a version committed before that. The files such a version added may have been replaced
   * since (OPTIMIZE); VACUUM would delete them, and the stream would fail on the first one it reads.
   */
  Duration vacuumRetention(MaintainedTable table, Duration policy, PrintStream out) {
    if (table.layer() != Layer.BRONZE) {
      return policy;
    }
    var hadoop = spark.sparkContext().hadoopConfiguration();
    Map<String, Long> positions = new LinkedHashMap<>();
    StreamPositions.readersOf(config, table.name(), this::silverProperties).forEach((stream, checkpoint) ->
        StreamPositions.position(checkpoint, hadoop).ifPresent(version -> positions.put(stream, version)));
    Optional<Map.Entry<String, Long>> oldest = positions.entrySet().stream().min(Map.Entry.comparingByValue());
    if (oldest.isEmpty()) {
      return policy;
    }
    String stream = oldest.get().getKey();
    long version = oldest.get().getValue();
    DeltaLogState log = DeltaLogState.read(spark, table.location().orElseThrow());
    if (version > log.version()) {
      return policy; // caught up: it resumes at the next version, not written yet
    }
    Optional<Instant> committed = log.committedAt(version);
    if (committed.isEmpty()) {
      out.println("      " + stream + " resumes at version " + version + ", which the log no longer keeps");
      return policy;
    }
    // Whole hours, with one to spare for the stream to move on while VACUUM lists the table.
    Duration needed = Duration.ofHours(Duration.between(committed.get(), Instant.now()).toHours() + 2);
    if (needed.compareTo(policy) <= 0) {
      return policy;
    }
    out.println("      " + stream + " resumes at version " + version + " (committed " + committed.get()
        + "): files removed since are kept, retention " + needed.toHours() + " hours");
    return needed;
  }

  /** A silver table's properties, if it exists (the checkpoint its stream runs with is recorded there). */
  private Optional<Map<String, String>> silverProperties(io.tributary.common.config.TableName name) {
    if (config.silver().format() == io.tributary.common.config.TableFormat.DELTA) {
      DeltaLogState log = DeltaLogState.read(spark,
          new io.tributary.common.lakehouse.Tables(config.catalog()).deltaPath(name));
      return log.version() < 0 ? Optional.empty() : Optional.of(log.properties());
    }
    String sqlName = config.catalog().name() + "." + name;
    if (!spark.catalog().tableExists(sqlName)) {
      return Optional.empty();
    }
    try {
      return Optional.of(Spark3Util.loadIcebergTable(spark, sqlName).properties());
    } catch (Exception e) {
      throw new IllegalStateException("cannot load " + sqlName + ": " + e.getMessage(), e);
    }
  }

  /**
   * A silver stream recognises a batch it replays after a crash by the stream id and batch id in its latest
   * commit's summary; that commit must outlive expiry, however many maintenance commits came after it.
   */
  private static OptionalLong latestStreamCommits(Table iceberg, PrintStream out) {
    Map<String, Snapshot> latest = StreamCommits.latestPerStream(iceberg);
    Optional<Map.Entry<String, Snapshot>> oldest = latest.entrySet().stream()
        .min(Comparator.comparingLong(entry -> entry.getValue().timestampMillis()));
    oldest.ifPresent(entry -> out.println("      the latest commits of " + latest.size() + " stream"
        + (latest.size() == 1 ? "" : "s") + " are kept (oldest: snapshot " + entry.getValue().snapshotId() + ")"));
    return oldest.map(entry -> OptionalLong.of(entry.getValue().snapshotId())).orElse(OptionalLong.empty());
  }
}
