package io.tributary.silver;

import io.tributary.silver.Truncates.Truncate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;

/**
 * History mode (SCD type 2): one row per version, valid from its change's time until the next version's
 * ({@code _valid_to} null and {@code _is_current} true for the latest). Changes arrive out of order, so for every
 * key a batch touches the timeline is recomputed from the versions already stored plus the new ones, in sequence
 * order, and one MERGE on (key, sequence) inserts the new versions and corrects the validity of the old ones. A
 * delete is a version with {@code _is_deleted}; a truncate adds such a version, with null values, to every key that
 * had a version before it. Replaying a batch recomputes the same timeline and changes nothing.
 */
final class HistoryMerge {
  private final SilverTable target;
  private final String table;
  private final Columns columns;

  HistoryMerge(SilverTable target, Columns columns) {
    this.target = target;
    this.table = target.name();
    this.columns = columns;
  }

  void apply(SparkSession spark, Dataset<Row> changes, boolean truncatedNow, List<Truncate> truncates,
      Map<String, String> commit) throws Exception {
    String suffix = Math.abs((long) table.hashCode()) + "_" + System.nanoTime();
    String changesView = "tributary_versions_" + suffix;
    String timelineView = "tributary_timeline_" + suffix;
    // current_timestamp(), not BatchTime: Spark 4.1 fails to plan the timeline's CTE, read twice, over a
    // nondeterministic column (PLAN_VALIDATION_FAILED_RULE_IN_BATCH in ReplaceCTERefWithRepartition).
    changes.selectExpr("*", "current_timestamp() AS _updated_at", "timestamp_millis(_ts_ms) AS _valid_from")
        .createOrReplaceTempView(changesView);
    List<String> versionColumns = new ArrayList<>(columns.all());
    versionColumns.add("_valid_from");
    String list = String.join(", ", versionColumns);
    // A new truncate closes every key; otherwise only the keys in this batch can change.
    String stored = truncatedNow ? "SELECT " + list + " FROM " + table
        : "SELECT " + prefixed("t", versionColumns) + " FROM " + table + " t LEFT SEMI JOIN " + changesView + " s ON "
            + columns.keyMatch("t", "s");
    String keys = columns.keyList();
    StringBuilder sql = new StringBuilder("WITH versions AS (" + stored + " UNION ALL SELECT " + list + " FROM "
        + changesView + ")");
    sql.append(", firsts AS (SELECT ").append(keys).append(", min(_seq) AS _first_seq FROM versions GROUP BY ")
        .append(keys).append(")");
    List<String> candidates = new ArrayList<>(List.of("SELECT " + list + " FROM versions"));
    for (Truncate truncate : truncates) {
      candidates.add("SELECT " + marker(truncate) + " FROM firsts WHERE " + truncate.olderThan("_first_seq"));
    }
    sql.append(", candidates AS (").append(String.join(" UNION ALL ", candidates)).append(")");
    // The same change seen twice (a duplicate in Kafka, or a replay) is one version: its first occurrence.
    sql.append(", distinct_versions AS (SELECT *, row_number() OVER (PARTITION BY ").append(keys)
        .append(", _seq ORDER BY _source_partition, _source_offset) AS _n FROM candidates)");
    String window = " OVER (PARTITION BY " + keys + " ORDER BY _seq)";
    sql.append(" SELECT ").append(list).append(", lead(_valid_from)").append(window).append(" AS _valid_to,")
        .append(" lead(_seq)").append(window).append(" IS NULL AS _is_current FROM distinct_versions WHERE _n = 1");
    spark.sql(sql.toString()).createOrReplaceTempView(timelineView);
    try {
      target.commit(commit, () -> spark.sql(mergeStatement(timelineView, versionColumns)));
    } finally {
      spark.catalog().dropTempView(changesView);
      spark.catalog().dropTempView(timelineView);
    }
  }

  /** The truncate's version of a key: values null, deleted. */
  private String marker(Truncate truncate) {
    List<String> projections = new ArrayList<>();
    for (StructField field : columns.schema().fields()) {
      String name = Columns.quote(field.name());
      projections.add(columns.key().contains(field.name()) ? name
          : "CAST(NULL AS " + field.dataType().sql() + ") AS " + name);
    }
    projections.add("'t' AS _op");
    projections.add(truncate.seqLiteral() + " AS _seq");
    if (columns.hasSequenceBytes()) {
      projections.add(SequenceBytes.of(truncate.seqLiteral()) + " AS " + SequenceBytes.COLUMN);
    }
    projections.add(truncate.tsMs() + "L AS _ts_ms");
    projections.add("true AS _is_deleted");
    projections.add(JsonFields.literal(truncate.topic()) + " AS _source_topic");
    projections.add(truncate.partition() + " AS _source_partition");
    projections.add(truncate.offset() + "L AS _source_offset");
    projections.add("current_timestamp() AS _updated_at");
    projections.add("timestamp_millis(" + truncate.tsMs() + "L) AS _valid_from");
    return String.join(", ", projections);
  }

  private String mergeStatement(String view, List<String> versionColumns) {
    List<String> all = new ArrayList<>(versionColumns);
    all.addAll(List.of("_valid_to", "_is_current"));
    return "MERGE INTO " + table + " t USING " + view + " s ON " + columns.keyMatch("t", "s") + " AND t._seq = s._seq"
        + " WHEN MATCHED AND (NOT (t._valid_to <=> s._valid_to) OR NOT (t._is_current <=> s._is_current))"
        + " THEN UPDATE SET t._valid_to = s._valid_to, t._is_current = s._is_current,"
        + " t._updated_at = current_timestamp()"
        + " WHEN NOT MATCHED THEN INSERT (" + String.join(", ", all) + ") VALUES ("
        + String.join(", ", all.stream().map(column -> "s." + column).toList()) + ")";
  }

  private static String prefixed(String alias, List<String> columns) {
    return String.join(", ", columns.stream().map(column -> alias + "." + column).toList());
  }
}
