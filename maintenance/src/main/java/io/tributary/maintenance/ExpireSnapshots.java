package io.tributary.maintenance;

import java.time.Instant;
import java.util.HashSet;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.actions.SparkActions;
import org.apache.spark.sql.SparkSession;

/**
 * Expires an Iceberg table's old snapshots and deletes the files only they referenced. A snapshot that a downstream
 * stream still has to read from ({@link #keepFrom}) is kept, with every snapshot after it, however old.
 */
final class ExpireSnapshots {
  /**
   * @param expired snapshots expired
   * @param deletedFiles data, delete, manifest and manifest-list files deleted
   * @param cutoff snapshots committed before this were expired (unless among the last retained)
   * @param heldBack whether a stream's position moved the cutoff back
   */
  record Result(int expired, long deletedFiles, Instant cutoff, boolean heldBack) {
    String describe() {
      return (expired == 0 ? "nothing to expire" : String.format("%,d snapshots expired, %,d files deleted", expired,
          deletedFiles)) + " (older than " + cutoff + (heldBack ? ", held back for a stream" : "") + ")";
    }
  }

  private final SparkSession spark;
  private final Table table;
  private Instant olderThan = Instant.now();
  private int retainLast = 1;
  private OptionalLong keepFrom = OptionalLong.empty();

  private ExpireSnapshots(SparkSession spark, Table table) {
    this.spark = spark;
    this.table = table;
  }

  static ExpireSnapshots of(SparkSession spark, Table table) {
    return new ExpireSnapshots(spark, table);
  }

  ExpireSnapshots olderThan(Instant instant) {
    this.olderThan = instant;
    return this;
  }

  ExpireSnapshots retainLast(int snapshots) {
    this.retainLast = snapshots;
    return this;
  }

  /** Keeps this snapshot and every later one (a stream's next batch starts there). */
  ExpireSnapshots keepFrom(OptionalLong snapshotId) {
    this.keepFrom = snapshotId;
    return this;
  }

  Result execute() {
    table.refresh();
    ExpiryCutoff cutoff = ExpiryCutoff.of(olderThan, keepFrom, ExpiryCutoff.commitTimes(table), table.name());
    Set<Long> before = ids(table);
    var result = SparkActions.get(spark).expireSnapshots(table).expireOlderThan(cutoff.cutoff().toEpochMilli())
        .retainLast(retainLast).execute();
    table.refresh();
    before.removeAll(ids(table)); // by id: streams may commit meanwhile
    long deleted = result.deletedDataFilesCount() + result.deletedPositionDeleteFilesCount()
        + result.deletedEqualityDeleteFilesCount() + result.deletedManifestsCount()
        + result.deletedManifestListsCount();
    return new Result(before.size(), deleted, cutoff.cutoff(), cutoff.heldBack());
  }

  private static Set<Long> ids(Table table) {
    Set<Long> ids = new HashSet<>();
    table.snapshots().forEach(snapshot -> ids.add(snapshot.snapshotId()));
    return ids;
  }
}
