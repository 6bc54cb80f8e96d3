package io.tributary.common.lakehouse;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.tables.DeltaTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * What Tributary records with a Delta commit: a JSON object of string values in the commit's {@code userMetadata}
 * (bronze's Kafka offsets, a silver stream's batch, a gold run's lineage), the Delta counterpart of an Iceberg
 * snapshot summary. Writes it and reads it back from the table's history; {@link SessionSettings} runs a statement
 * with it in force.
 */
public final class DeltaCommitMetadata {
  /** The session setting whose value every Delta commit of the session records as its user metadata. */
  public static final String USER_METADATA = "spark.databricks.delta.commitInfo.userMetadata";

  private static final ObjectMapper JSON = new ObjectMapper();

  private DeltaCommitMetadata() {}

  /**
   * One commit of a table's history: its version, time and operation ({@code MERGE}, {@code RESTORE}...) with its
   * parameters, and what Tributary recorded with it (empty for other writers).
   */
  public record Commit(long version, java.time.Instant time, String operation, Map<String, String> parameters,
      Map<String, String> recorded) {}

  /** {@code values} as user metadata (keys in order). */
  public static String json(Map<String, String> values) {
    try {
      return JSON.writeValueAsString(new TreeMap<>(values));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A commit's user metadata as Tributary wrote it, when it holds {@code key}; empty for another writer's (a
   * maintenance command, a user's own write, metadata that merely mentions the key).
   */
  public static Map<String, String> parse(String userMetadata, String key) {
    if (userMetadata == null || !userMetadata.contains(key)) {
      return Map.of();
    }
    try {
      Map<String, String> values = new TreeMap<>();
      JSON.readTree(userMetadata).fields().forEachRemaining(field -> values.put(field.getKey(),
          field.getValue().asText()));
      return values.containsKey(key) ? values : Map.of();
    } catch (JsonProcessingException e) {
      return Map.of();
    }
  }

  /**
   * The newest {@code limit} commits of the Delta table at {@code path} (all of them for a limit below 1), newest
   * first, each with what Tributary recorded holding {@code key}.
   */
  public static List<Commit> history(SparkSession spark, String path, int limit, String key) {
    DeltaTable delta = DeltaTable.forPath(spark, path);
    List<Commit> commits = new ArrayList<>();
    for (Row row : (limit < 1 ? delta.history() : delta.history(limit))
        .select("version", "timestamp", "operation", "operationParameters", "userMetadata")
        .orderBy(org.apache.spark.sql.functions.col("version").desc()).collectAsList()) {
      Map<String, String> parameters = new TreeMap<>();
      if (!row.isNullAt(3)) {
        row.<String, String>getJavaMap(3).forEach((name, value) -> {
          if (value != null) {
            parameters.put(name, value);
          }
        });
      }
      commits.add(new Commit(row.getLong(0), row.getTimestamp(1).toInstant(), row.getString(2), parameters,
          parse(row.isNullAt(4) ? null : row.getString(4), key)));
    }
    return commits;
  }

  /**
   * What Tributary recorded with each of the newest {@code limit} commits of the Delta table at {@code path}, newest
   * first, read from the commit files on the driver. {@link #history} asks Delta's history, which runs a Spark job
   * (about 0.1 s, and two of them per bronze batch); a writer that only needs its own records reads them here. The
   * times are the writers' clocks as recorded; time travel by timestamp goes by {@link #history}'s. Commits whose
   * files the log has cleaned up are not returned.
   */
  public static List<Commit> recorded(SparkSession spark, String path, int limit, String key) {
    org.apache.spark.sql.delta.DeltaLog log = org.apache.spark.sql.delta.DeltaLog.forTable(spark, path);
    long latest = log.update(false, scala.Option.empty(), scala.Option.empty()).version();
    List<Commit> commits = new ArrayList<>();
    if (latest < 0) {
      return commits;
    }
    var changes = log.getChanges(Math.max(0, latest - limit + 1), latest, scala.Option.empty(), false);
    while (changes.hasNext()) {
      scala.Tuple2<Object, scala.collection.immutable.Seq<org.apache.spark.sql.delta.actions.Action>> change =
          changes.next();
      long version = (Long) change._1();
      for (org.apache.spark.sql.delta.actions.Action action : scala.jdk.javaapi.CollectionConverters.asJava(
          change._2())) {
        if (action instanceof org.apache.spark.sql.delta.actions.CommitInfo info) {
          commits.add(new Commit(version, java.time.Instant.ofEpochMilli(info.timestamp().getTime()),
              info.operation(), parameters(info), parse(info.userMetadata().isDefined()
                  ? info.userMetadata().get() : null, key)));
        }
      }
    }
    commits.sort(java.util.Comparator.comparingLong(Commit::version).reversed());
    return commits;
  }

  /** A commit file's operation parameters as the history gives them: each value is written as a JSON string. */
  private static Map<String, String> parameters(org.apache.spark.sql.delta.actions.CommitInfo info) {
    Map<String, String> parameters = new TreeMap<>();
    scala.jdk.javaapi.CollectionConverters.asJava(info.operationParameters()).forEach((name, value) -> {
      if (value != null) {
        parameters.put(name, jsonText(value));
      }
    });
    return parameters;
  }

  private static String jsonText(String value) {
    try {
      var node = JSON.readTree(value);
      return node != null && node.isTextual() ? node.asText() : value;
    } catch (JsonProcessingException e) {
      return value;
    }
  }
}
