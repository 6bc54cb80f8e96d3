package io.tributary.silver;

import io.tributary.common.config.SilverEntity.DeleteMode;
import io.tributary.common.lakehouse.BatchTime;
import io.tributary.silver.Truncates.Truncate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import io.tributary.common.config.TableFormat;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;

/**
 * One row per key. The latest change per key goes into one MERGE in which only a newer change (by sequence, then
 * Kafka position) applies, so an out-of-order or replayed change matches no clause. A delete leaves a tombstone
 * row ({@code _is_deleted}) or, with delete-mode hard, removes the row. A truncate clears every older row; a change
 * older than the latest truncate that arrives later becomes the same tombstone the truncate left (key kept, values
 * null; with delete-mode hard it is dropped), so an incremental run and a rebuild from all of bronze end in the
 * same table.
 */
final class CurrentStateMerge {
  private final SilverTable target;
  private final String table;
  private final Columns columns;
  private final DeleteMode deleteMode;

  CurrentStateMerge(SilverTable target, Columns columns, DeleteMode deleteMode) {
    this.target = target;
    this.table = target.name();
    this.columns = columns;
    this.deleteMode = deleteMode;
  }

  /** {@link #apply(SparkSession, Dataset, Optional, Truncate, Truncate, Map)} with a job of its own for the range. */
  void apply(SparkSession spark, Dataset<Row> changes, Truncate truncateInBatch, Truncate latestTruncate,
      Map<String, String> commit) throws Exception {
    apply(spark, changes, KeyRange.of(changes, columns, target), truncateInBatch, latestTruncate, commit);
  }

  /** @param range the changes' key range on the table ({@link KeyRange}) */
  void apply(SparkSession spark, Dataset<Row> changes, Optional<KeyRange> range, Truncate truncateInBatch,
      Truncate latestTruncate, Map<String, String> commit) throws Exception {
    SequenceBytes.register(spark); // a truncate's tombstone has the bytes of its sequence
    if (truncateInBatch != null) {
      // Not marked as the batch's commit: a crash before the MERGE replays the batch, and this finds nothing left.
      spark.sql(deleteMode == DeleteMode.HARD
          ? "DELETE FROM " + table + " WHERE " + truncateInBatch.olderThan("_seq")
          : "UPDATE " + table + " SET " + String.join(", ", truncated(truncateInBatch)) + " WHERE "
              + truncateInBatch.olderThan("_seq"));
    }
    Dataset<Row> latest = changes
        .selectExpr("*", "row_number() OVER (PARTITION BY " + columns.keyList()
            + " ORDER BY _seq DESC, _source_partition DESC, _source_offset DESC) AS _rank")
        .where("_rank = 1")
        .drop("_rank")
        .withColumn("_updated_at", BatchTime.of(Instant.now()));
    if (latestTruncate != null) {
      latest = deleteMode == DeleteMode.HARD
          ? latest.where("NOT " + latestTruncate.olderThan("_seq"))
          : latest.selectExpr(supersededByTruncate(latestTruncate).toArray(new String[0]));
    }
    String view = "tributary_changes_" + Math.abs((long) table.hashCode()) + "_" + System.nanoTime();
    latest.createOrReplaceTempView(view);
    try {
      if (truncateInBatch == null && range.isPresent() && range.get().keys() == KeyRange.Keys.ALL_NEW) {
        // Every key is new to the table (its files say so): the MERGE would insert each change; appended instead.
        // Not after a truncate's statement above, whose commit came after the files were read.
        target.appendNewKeys(spark.sql(insertStatement(view)), range.get().within(), commit);
      } else if (target.format() == TableFormat.ICEBERG) {
        BucketAlignedJoin.run(spark, () -> target.commit(commit, () -> spark.sql(mergeStatement(view, range))));
      } else {
        target.commit(commit, () -> spark.sql(mergeStatement(view, range)));
      }
    } finally {
      spark.catalog().dropTempView(view);
    }
  }

  /** SET clauses (or, with a prefix, projections) that turn a row into the truncate's tombstone. */
  private List<String> truncated(Truncate truncate) {
    List<String> set = new ArrayList<>();
    for (StructField field : columns.values()) {
      set.add(Columns.quote(field.name()) + " = NULL");
    }
    set.add("_op = 't'");
    set.add("_seq = " + truncate.seqLiteral());
    if (columns.hasSequenceBytes()) {
      set.add(SequenceBytes.COLUMN + " = " + SequenceBytes.of(truncate.seqLiteral()));
    }
    set.add("_ts_ms = " + truncate.tsMs());
    set.add("_is_deleted = true");
    set.add("_source_topic = " + JsonFields.literal(truncate.topic()));
    set.add("_source_partition = " + truncate.partition());
    set.add("_source_offset = " + truncate.offset());
    set.add("_updated_at = current_timestamp()");
    return set;
  }

  /** Projections that keep a change newer than the truncate and turn an older one into its tombstone. */
  private List<String> supersededByTruncate(Truncate truncate) {
    String older = truncate.olderThan("_seq");
    List<String> projections = new ArrayList<>();
    for (StructField field : columns.schema().fields()) {
      String name = Columns.quote(field.name());
      projections.add(columns.key().contains(field.name()) ? name
          : "CASE WHEN " + older + " THEN NULL ELSE " + name + " END AS " + name);
    }
    for (String assignment : truncated(truncate)) {
      String[] parts = assignment.split(" = ", 2);
      if (parts[0].startsWith("_")) {
        projections.add("CASE WHEN " + older + " THEN " + parts[1] + " ELSE " + parts[0] + " END AS " + parts[0]);
      }
    }
    return projections;
  }

  /** The rows the MERGE would insert when no change matches a row: a tombstone too, unless deletes are hard. */
  private String insertStatement(String view) {
    return target.insertable(view) + (deleteMode == DeleteMode.HARD ? " WHERE NOT _is_deleted" : "");
  }

  /**
   * @param range the batch's key range: the join condition bounds the table's side by it, so that the table's files
   *     outside it are not read
   */
  String mergeStatement(String view, Optional<KeyRange> range) {
    List<String> all = columns.all();
    String set = String.join(", ", all.stream().map(column -> "t." + column + " = s." + column).toList());
    String insert = " WHEN NOT MATCHED" + (deleteMode == DeleteMode.HARD ? " AND NOT s._is_deleted" : "")
        + " THEN INSERT (" + String.join(", ", all) + ") VALUES ("
        + String.join(", ", all.stream().map(column -> "s." + column).toList()) + ")";
    String newer = columns.newer("s", "t");
    // Only a newer change applies; an older one (out of order, or a replay) matches no clause.
    return "MERGE INTO " + table + " t USING " + view + " s ON " + columns.keyMatch("t", "s")
        + range.map(keys -> " AND " + keys.within("t")).orElse("")
        + (deleteMode == DeleteMode.HARD ? " WHEN MATCHED AND s._is_deleted AND " + newer + " THEN DELETE" : "")
        + " WHEN MATCHED AND " + newer + " THEN UPDATE SET " + set
        + insert;
  }
}
