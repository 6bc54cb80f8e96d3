package io.tributary.silver;

import io.tributary.common.config.TableFormat;
import io.tributary.silver.Truncates.Truncate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * History mode (SCD type 2): one row per version, valid from its change's time until the next version's
 * ({@code _valid_to} null and {@code _is_current} true for the latest). Changes arrive out of order, so for every
 * key a batch touches the timeline is recomputed from the versions already stored plus the new ones, in sequence
 * order, and one MERGE on (key, sequence) inserts the new versions and corrects the validity of the old ones. A
 * delete is a version with {@code _is_deleted}; a truncate adds such a version, with null values, to every key that
 * had a version before it. Replaying a batch recomputes the same timeline and changes nothing.
 *
 * <p>The stored versions are read narrowly (what orders them and their validity: a MERGE changes nothing else of a
 * stored version), the MERGE's source is only the versions it changes (new ones, and stored ones whose validity
 * moves), not every stored version of every key touched, and both reads of the table are bounded by the batch's
 * {@link KeyRange}; on Iceberg the MERGE joins bucket by bucket ({@link BucketAlignedJoin}). A batch whose keys no
 * file holds (an initial load, keys beyond the table's) has no stored versions to read: its timeline is appended
 * ({@link SilverTable#appendNewKeys}).
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

  /**
   * @param range the batch's key range on the table ({@link KeyRange}); not used when {@code truncatedNow}, since
   *     then every key of the table may change
   * @param truncatedNow whether the batch brings a truncate, which closes every key of the table
   * @param truncates every truncate the table has seen, this batch's included
   */
  void apply(SparkSession spark, Dataset<Row> changes, Optional<KeyRange> range, boolean truncatedNow,
      List<Truncate> truncates, Map<String, String> commit) throws Exception {
    SequenceBytes.register(spark); // a truncate's version has the bytes of its sequence
    String suffix = Math.abs((long) table.hashCode()) + "_" + System.nanoTime();
    String changesView = "tributary_versions_" + suffix;
    String timelineView = "tributary_timeline_" + suffix;
    // current_timestamp(), not BatchTime: Spark 4.1 fails to plan the timeline's CTE, read twice, over a
    // nondeterministic column (PLAN_VALIDATION_FAILED_RULE_IN_BATCH in ReplaceCTERefWithRepartition).
    changes.selectExpr("*", "current_timestamp() AS _updated_at", "timestamp_millis(_ts_ms) AS _valid_from")
        .createOrReplaceTempView(changesView);
    Optional<KeyRange> bounds = truncatedNow ? Optional.empty() : range;
    boolean allNew = bounds.isPresent() && bounds.get().keys() == KeyRange.Keys.ALL_NEW;
    spark.sql(timeline(changesView, bounds, allNew, truncatedNow, truncates)).createOrReplaceTempView(timelineView);
    try {
      if (allNew) {
        target.appendNewKeys(spark.sql(target.insertable(timelineView)), bounds.get().within(), commit);
      } else if (target.format() == TableFormat.ICEBERG) {
        BucketAlignedJoin.run(spark, () -> target.commit(commit, () -> spark.sql(mergeStatement(timelineView,
            bounds))));
      } else {
        target.commit(commit, () -> spark.sql(mergeStatement(timelineView, bounds)));
      }
    } finally {
      spark.catalog().dropTempView(changesView);
      spark.catalog().dropTempView(timelineView);
    }
  }

  /**
   * The versions the batch adds or whose validity it moves, with their validity: the stored versions of the keys
   * it touches (every key after a new truncate; none when no file holds them) and the batch's own, in one timeline
   * per key.
   */
  private String timeline(String changesView, Optional<KeyRange> bounds, boolean allNew, boolean truncatedNow,
      List<Truncate> truncates) {
    List<String> versionColumns = versionColumns();
    String list = String.join(", ", versionColumns);
    String notStored = "CAST(NULL AS TIMESTAMP) AS _stored_valid_to, CAST(NULL AS BOOLEAN) AS _stored_is_current,"
        + " false AS _stored";
    String batch = "SELECT " + list + ", " + notStored + " FROM " + changesView;
    String stored = "SELECT " + String.join(", ", storedProjections()) + ", t._valid_to AS _stored_valid_to,"
        + " t._is_current AS _stored_is_current, true AS _stored FROM " + table + " t"
        + (truncatedNow ? "" : " LEFT SEMI JOIN " + changesView + " s ON " + columns.keyMatch("t", "s")
            + bounds.map(keys -> " AND " + keys.within("t")).orElse(""));
    String keys = columns.keyList();
    StringBuilder sql = new StringBuilder("WITH versions AS (" + (allNew ? batch : stored + " UNION ALL " + batch)
        + ")");
    sql.append(", firsts AS (SELECT ").append(keys).append(", min(_seq) AS _first_seq FROM versions GROUP BY ")
        .append(keys).append(")");
    List<String> candidates = new ArrayList<>(List.of("SELECT * FROM versions"));
    for (Truncate truncate : truncates) {
      candidates.add("SELECT " + marker(truncate) + ", " + notStored + " FROM firsts WHERE "
          + truncate.olderThan("_first_seq"));
    }
    sql.append(", candidates AS (").append(String.join(" UNION ALL ", candidates)).append(")");
    // The same change seen twice (a duplicate in Kafka, or a replay) is one version: its first occurrence, the
    // stored one where the table has it.
    sql.append(", distinct_versions AS (SELECT *, row_number() OVER (PARTITION BY ").append(keys)
        .append(", _seq ORDER BY _source_partition, _source_offset, _stored DESC) AS _n FROM candidates)");
    String window = " OVER (PARTITION BY " + keys + " ORDER BY _seq)";
    sql.append(", validity AS (SELECT *, lead(_valid_from)").append(window).append(" AS _valid_to, lead(_seq)")
        .append(window).append(" IS NULL AS _is_current FROM distinct_versions WHERE _n = 1)");
    // A stored version whose validity stays would match the MERGE and change nothing: left out of its source.
    sql.append(" SELECT ").append(list).append(", _valid_to, _is_current, _stored FROM validity WHERE NOT _stored")
        .append(" OR NOT (_stored_valid_to <=> _valid_to) OR NOT (_stored_is_current <=> _is_current)");
    return sql.toString();
  }

  /**
   * A stored version as the timeline reads it: only what orders it and its validity (the MERGE changes nothing else
   * of a stored version), its other columns null. A narrower read of the whole table than every column.
   */
  private List<String> storedProjections() {
    List<String> read = new ArrayList<>(columns.key());
    read.addAll(List.of("_seq", "_source_partition", "_source_offset", "_valid_from"));
    StructType table = target.schema();
    List<String> projections = new ArrayList<>();
    for (String column : versionColumns()) { // in the order of the batch's versions, which the union follows
      String name = column.startsWith("`") ? column.substring(1, column.length() - 1).replace("``", "`") : column;
      projections.add(read.contains(name) ? "t." + column
          : "CAST(NULL AS " + table.apply(name).dataType().sql() + ") AS " + column);
    }
    return projections;
  }

  /** The columns a version brings into the timeline: the entity's, Tributary's, and the time it is valid from. */
  private List<String> versionColumns() {
    List<String> versionColumns = new ArrayList<>(columns.all());
    versionColumns.add("_valid_from");
    return versionColumns;
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

  /** @param bounds the batch's key range, which bounds the table's side of the join (its files outside are not read) */
  private String mergeStatement(String view, Optional<KeyRange> bounds) {
    List<String> all = new ArrayList<>(versionColumns());
    all.addAll(List.of("_valid_to", "_is_current"));
    return "MERGE INTO " + table + " t USING " + view + " s ON " + columns.keyMatch("t", "s") + " AND t._seq = s._seq"
        + bounds.map(keys -> " AND " + keys.within("t")).orElse("")
        + " WHEN MATCHED AND (NOT (t._valid_to <=> s._valid_to) OR NOT (t._is_current <=> s._is_current))"
        + " THEN UPDATE SET t._valid_to = s._valid_to, t._is_current = s._is_current,"
        + " t._updated_at = current_timestamp()"
        // A stored version the MERGE does not find (gone since it was read) is not inserted again: its read left
        // out its values.
        + " WHEN NOT MATCHED AND NOT s._stored THEN INSERT (" + String.join(", ", all) + ") VALUES ("
        + String.join(", ", all.stream().map(column -> "s." + column).toList()) + ")";
  }
}
