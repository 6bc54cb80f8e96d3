package io.tributary.maintenance;

import java.time.Instant;
import org.apache.spark.sql.SparkSession;

/**
 * Removes the tombstones of a silver current-state table whose delete is older than the horizon (in the source's
 * time, {@code _ts_ms}). Until then a tombstone keeps a late, older change from bringing its key back.
 */
final class PurgeTombstones {
  /** @param removed tombstone rows removed */
  record Result(long removed, Instant horizon) {
    String describe() {
      return (removed == 0 ? "no tombstones" : String.format("%,d tombstones removed", removed)) + " older than "
          + horizon;
    }
  }

  private final SparkSession spark;
  private final String table;
  private Instant olderThan = Instant.EPOCH;

  private PurgeTombstones(SparkSession spark, String table) {
    this.spark = spark;
    this.table = table;
  }

  static PurgeTombstones of(SparkSession spark, String table) {
    return new PurgeTombstones(spark, table);
  }

  PurgeTombstones olderThan(Instant horizon) {
    this.olderThan = horizon;
    return this;
  }

  Result execute() {
    String condition = "_is_deleted AND _ts_ms < " + olderThan.toEpochMilli();
    long found = spark.sql("SELECT count(*) FROM " + table + " WHERE " + condition).first().getLong(0);
    if (found > 0) {
      spark.sql("DELETE FROM " + table + " WHERE " + condition);
    }
    return new Result(found, olderThan);
  }
}
