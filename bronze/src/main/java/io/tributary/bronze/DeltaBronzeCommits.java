package io.tributary.bronze;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.exceptions.ConcurrentTransactionException;
import io.delta.tables.DeltaTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Bronze's record of loaded offsets in a Delta table: the commit's {@code userMetadata}, a JSON object of the summary.
 * Delta's idempotent-write identifiers only say that a batch number was written, not which offsets, so they cannot
 * tell a replay from a batch Spark planned again over a longer range; the offsets decide what a batch writes. The
 * identifiers make the commit conditional instead: its {@code txnVersion} is one more than the table version the
 * batch was planned on, so a second writer that planned on the same version is skipped by Delta, or refused if the
 * two commits overlap in time.
 */
final class DeltaBronzeCommits implements BronzeCommits {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Commits read back for the newest stream commit; maintenance commits in between record nothing. */
  private static final int HISTORY = 50;
  /** The application id of every bronze stream commit to one table (a table has one bronze source). */
  static final String TXN_APP_ID = "tributary-bronze";
  /** The summary key that tells this writer's commit from another writer's in the history. */
  private static final String WRITE_ID = "tributary.bronze.write-id";

  private final SparkSession spark;
  private final String path;

  DeltaBronzeCommits(SparkSession spark, String path) {
    this.spark = spark;
    this.path = path;
  }

  @Override
  public TableEnd end() {
    if (!DeltaTable.isDeltaTable(spark, path)) {
      return new TableEnd(KafkaOffsets.NONE, null);
    }
    DeltaTable delta = DeltaTable.forPath(spark, path);
    List<Row> history = history(delta);
    long version = history.get(0).getLong(0);
    for (Row commit : history) {
      Map<String, String> summary = summary(commit);
      if (summary.containsKey(END_OFFSETS)) {
        return new TableEnd(KafkaOffsets.parse(summary.get(END_OFFSETS)), version);
      }
    }
    return new TableEnd(BronzeCommits.fromRows(spark.read().format("delta").option("versionAsOf", version)
        .load(path)), version);
  }

  @Override
  public boolean appendIfUnchangedSince(TableEnd basedOn, Dataset<Row> rows, Map<String, String> summary) {
    String writeId = UUID.randomUUID().toString();
    Map<String, String> recorded = new TreeMap<>(summary);
    recorded.put(WRITE_ID, writeId);
    long txnVersion = basedOn.version() == null ? 0 : basedOn.version() + 1;
    try {
      rows.write().format("delta").mode("append")
          .option("txnAppId", TXN_APP_ID)
          .option("txnVersion", txnVersion)
          .option("userMetadata", JSON.writeValueAsString(recorded))
          .save(path);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      if (concurrentCommit(e)) {
        return false;
      }
      throw e;
    }
    // Delta skips a write whose txnVersion it has seen, without a word: the newest stream commit tells.
    for (Row commit : history(DeltaTable.forPath(spark, path))) {
      Map<String, String> committed = summary(commit);
      if (committed.containsKey(END_OFFSETS)) {
        return writeId.equals(committed.get(WRITE_ID));
      }
    }
    return false;
  }

  private static boolean concurrentCommit(Throwable e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof ConcurrentTransactionException) {
        return true;
      }
    }
    return false;
  }

  private static List<Row> history(DeltaTable delta) {
    return delta.history(HISTORY).select("version", "userMetadata")
        .orderBy(org.apache.spark.sql.functions.col("version").desc()).collectAsList();
  }

  /** A commit's bronze summary; empty for a commit of another writer (maintenance, a user's own write). */
  private static Map<String, String> summary(Row commit) {
    String metadata = commit.isNullAt(1) ? null : commit.getString(1);
    if (metadata == null || !metadata.contains(END_OFFSETS)) {
      return Map.of();
    }
    try {
      JsonNode node = JSON.readTree(metadata);
      Map<String, String> summary = new TreeMap<>();
      node.fields().forEachRemaining(field -> summary.put(field.getKey(), field.getValue().asText()));
      return summary;
    } catch (IOException e) {
      // Another writer's metadata that merely mentions the key: not a bronze commit.
      return Map.of();
    }
  }
}
