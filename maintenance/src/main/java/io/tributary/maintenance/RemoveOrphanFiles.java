package io.tributary.maintenance;

import io.tributary.common.config.MaintenancePolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.actions.SparkActions;
import org.apache.spark.sql.SparkSession;

/**
 * Deletes files under an Iceberg table's location that no snapshot references (left by failed or killed writes),
 * when they are older than a margin of at least a day: a file of a commit still in progress is referenced by no
 * snapshot yet either.
 */
final class RemoveOrphanFiles {
  /** @param deleted the locations of the files deleted */
  record Result(List<String> deleted) {
    String describe() {
      return deleted.isEmpty() ? "no orphan files" : String.format("%,d orphan files deleted", deleted.size());
    }
  }

  private final SparkSession spark;
  private final Table table;
  private Duration olderThan = Duration.ofDays(3);

  private RemoveOrphanFiles(SparkSession spark, Table table) {
    this.spark = spark;
    this.table = table;
  }

  static RemoveOrphanFiles of(SparkSession spark, Table table) {
    return new RemoveOrphanFiles(spark, table);
  }

  RemoveOrphanFiles olderThan(Duration age) {
    if (age.compareTo(MaintenancePolicy.MIN_ORPHAN_AGE) < 0) {
      throw new IllegalArgumentException("orphan files must be older than at least "
          + MaintenancePolicy.MIN_ORPHAN_AGE.toHours() + " hours to be removed, got " + age.toHours() + " hours");
    }
    this.olderThan = age;
    return this;
  }

  Result execute() {
    var result = SparkActions.get(spark).deleteOrphanFiles(table)
        .olderThan(Instant.now().minus(olderThan).toEpochMilli())
        .execute();
    List<String> deleted = new ArrayList<>();
    result.orphanFileLocations().forEach(deleted::add);
    return new Result(List.copyOf(deleted));
  }
}
