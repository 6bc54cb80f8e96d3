package io.tributary.maintenance;

import org.apache.iceberg.Table;
import org.apache.iceberg.relocated.com.google.common.collect.Iterables;
import org.apache.iceberg.spark.actions.SparkActions;
import org.apache.spark.sql.SparkSession;

/** Rewrites an Iceberg table's manifests (one per commit of a stream) into a few, grouped by partition. */
final class RewriteManifests {
  /**
   * @param rewrittenManifests manifests replaced
   * @param addedManifests manifests written
   */
  record Result(int rewrittenManifests, int addedManifests) {
    String describe() {
      return rewrittenManifests == 0 ? "nothing to rewrite"
          : String.format("%,d manifests -> %,d", rewrittenManifests, addedManifests);
    }
  }

  private final SparkSession spark;
  private final Table table;

  private RewriteManifests(SparkSession spark, Table table) {
    this.spark = spark;
    this.table = table;
  }

  static RewriteManifests of(SparkSession spark, Table table) {
    return new RewriteManifests(spark, table);
  }

  Result execute() {
    var result = SparkActions.get(spark).rewriteManifests(table).execute();
    return new Result(Iterables.size(result.rewrittenManifests()), Iterables.size(result.addedManifests()));
  }
}
