package io.tributary.bronze;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.tables.DeltaTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Bronze's record of loaded offsets in a Delta table: the commit's {@code userMetadata}, a JSON object of the summary.
 * Delta's own idempotent-write identifiers ({@code txnAppId}, {@code txnVersion}) only say that a batch number was
 * written, not which offsets, so they cannot tell a replay from a batch Spark planned again over a longer range.
 */
final class DeltaBronzeCommits implements BronzeCommits {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Commits read back for the newest stream commit; maintenance commits in between record nothing. */
  private static final int HISTORY = 50;

  private final SparkSession spark;
  private final String path;

  DeltaBronzeCommits(SparkSession spark, String path) {
    this.spark = spark;
    this.path = path;
  }

  @Override
  public KafkaOffsets loaded() {
    if (!DeltaTable.isDeltaTable(spark, path)) {
      return KafkaOffsets.NONE;
    }
    DeltaTable delta = DeltaTable.forPath(spark, path);
    List<Row> history = delta.history(HISTORY).select("version", "userMetadata").orderBy(
        org.apache.spark.sql.functions.col("version").desc()).collectAsList();
    for (Row commit : history) {
      String metadata = commit.isNullAt(1) ? null : commit.getString(1);
      if (metadata != null && metadata.contains(END_OFFSETS)) {
        try {
          JsonNode summary = JSON.readTree(metadata);
          if (summary.has(END_OFFSETS)) {
            return KafkaOffsets.parse(summary.get(END_OFFSETS).asText());
          }
        } catch (IOException e) {
          // Another writer's metadata that merely mentions the key: not a bronze commit.
        }
      }
    }
    return BronzeCommits.fromRows(delta.toDF());
  }

  @Override
  public void append(Dataset<Row> rows, Map<String, String> summary) {
    String metadata;
    try {
      metadata = JSON.writeValueAsString(new TreeMap<>(summary));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    rows.write().format("delta").mode("append").option("userMetadata", metadata).save(path);
  }
}
