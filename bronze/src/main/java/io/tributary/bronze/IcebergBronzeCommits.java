package io.tributary.bronze;

import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** Bronze's record of loaded offsets in an Iceberg table: the snapshot summary of each stream commit. */
final class IcebergBronzeCommits implements BronzeCommits {
  private final SparkSession spark;
  private final String table;

  IcebergBronzeCommits(SparkSession spark, String table) {
    this.spark = spark;
    this.table = table;
  }

  @Override
  public KafkaOffsets loaded() {
    Table iceberg = load();
    if (iceberg.currentSnapshot() == null) {
      return KafkaOffsets.NONE;
    }
    // The newest stream commit among the current snapshot's ancestors: compaction, expiry and re-ingest commits
    // in between record nothing, and a re-ingest only adds records below where the stream stands.
    for (Snapshot snapshot : SnapshotUtil.currentAncestors(iceberg)) {
      String ends = snapshot.summary().get(END_OFFSETS);
      if (ends != null) {
        return KafkaOffsets.parse(ends);
      }
    }
    return BronzeCommits.fromRows(spark.table(table));
  }

  @Override
  public void append(Dataset<Row> rows, Map<String, String> summary) {
    try {
      CommitMetadata.withCommitProperties(summary, () -> {
        rows.writeTo(table).append();
        return null;
      }, Exception.class);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("cannot append to " + table + ": " + e.getMessage(), e);
    }
  }

  private Table load() {
    try {
      Table iceberg = Spark3Util.loadIcebergTable(spark, table);
      iceberg.refresh();
      return iceberg;
    } catch (Exception e) {
      throw new IllegalStateException("cannot load " + table + ": " + e.getMessage(), e);
    }
  }
}
