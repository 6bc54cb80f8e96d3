package io.tributary.silver;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tributary.bronze.BronzeFixture;
import io.tributary.bronze.BronzeIngestJob;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.testing.SharedSpark;
import io.tributary.localstack.GeneratedRecord;
import io.tributary.localstack.GeneratorOptions;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.ShopEventGenerator;
import io.tributary.localstack.testing.SharedKafka;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A generated Debezium stream with out-of-order updates, duplicates, deletes with tombstones, snapshot reads, a
 * truncate and malformed records, through bronze into silver: silver equals a reference computed here by replaying
 * the good events in sequence order, and quarantine holds exactly the malformed records.
 */
@ExtendWith({SharedSpark.class, SharedKafka.class})
class SilverMergeIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SCHEMA = "id BIGINT, name STRING, email STRING, country STRING, tier STRING,"
      + " credit_limit DECIMAL(10,2), created_at TIMESTAMP, updated_at TIMESTAMP";

  @Test
  void silverEqualsTheReplayedReferenceAndAReplayedBatchChangesNothing(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(2, "customers");
    GeneratorOptions options = new GeneratorOptions(0, 1200, 400, 0.3, 0.05, 0.02, true,
        Instant.parse("2026-11-01T00:00:00Z"), Duration.ofHours(6), 17);
    List<GeneratedRecord> generated = new ArrayList<>();
    ShopEventGenerator.records(options).forEachRemaining(record -> {
      if (record.topic().equals(GeneratorOptions.CUSTOMERS_TOPIC)) {
        generated.add(record);
      }
    });
    String topic = fixture.topic("customers");
    fixture.send("customers", generated.stream()
        .map(r -> new ProducerRecord<>(topic, null, r.timestampMs(), r.key(), r.value()))
        .toList());

    // Small batches on both sides, so that late changes meet newer ones already merged in an earlier batch.
    TributaryConfig config = fixture.config(Map.of("customers", "customers"),
        "tributary.bronze.defaults.max-offsets-per-trigger = 150\n"
        + "tributary.silver.entities.customers { source = \"bronze.customers\", key = [\"id\"],"
        + " table = \"silver.customers\", buckets = 4, max-rows-per-trigger = 100, schema = \"" + SCHEMA + "\" }");
    new BronzeIngestJob(spark, config).run(true);
    new SilverMergeJob(spark, config).run(true);

    String silver = config.catalog().name() + ".silver.customers";
    assertThat(spark.table(silver + ".snapshots").count()).as("silver commits").isGreaterThan(4);
    Map<Long, List<String>> expected = reference(generated);
    assertThat(expected).hasSizeGreaterThan(10);
    assertThat(live(spark, silver)).isEqualTo(expected);

    String quarantine = config.catalog().name() + ".silver.quarantine";
    long malformed = generated.stream().filter(r -> r.kind() == GeneratedRecord.Kind.MALFORMED).count();
    assertThat(malformed).isPositive();
    assertThat(spark.table(quarantine).count()).isEqualTo(malformed);
    assertThat(spark.table(quarantine).where("reason IS NULL OR reason = ''").count()).isZero();
    assertThat(spark.table(quarantine).selectExpr("reason").distinct().collectAsList().stream()
        .map(row -> row.getString(0)))
        .allMatch(reason -> reason.equals("value is not valid UTF-8") || reason.equals("value is not valid JSON")
            || reason.equals("unknown op 'x'") || reason.equals("missing key column id"));

    // A crash after the MERGE commit and before the checkpoint's commit: Spark replays the last batch.
    long snapshotsBefore = spark.table(silver + ".snapshots").count();
    long quarantinedBefore = spark.table(quarantine).count();
    forgetLastCommit(config.checkpointFor("silver", io.tributary.common.config.TableFormat.ICEBERG,
        config.silver().entities().get("customers").table()));
    new SilverMergeJob(spark, config).run(true);
    assertThat(spark.table(silver + ".snapshots").count()).isEqualTo(snapshotsBefore);
    assertThat(spark.table(quarantine).count()).isEqualTo(quarantinedBefore);
    assertThat(live(spark, silver)).isEqualTo(expected);
  }

  /** Live rows of silver as id → column values. */
  private static Map<Long, List<String>> live(SparkSession spark, String silver) {
    Map<Long, List<String>> rows = new TreeMap<>();
    for (Row row : spark.sql("SELECT id, name, email, country, tier, CAST(credit_limit AS STRING),"
        + " unix_micros(created_at), unix_micros(updated_at) FROM " + silver + " WHERE NOT _is_deleted").collectAsList()) {
      rows.put(row.getLong(0), List.of(row.getString(1), row.getString(2), row.getString(3), row.getString(4),
          row.getString(5), String.valueOf(row.getLong(6)), String.valueOf(row.getLong(7))));
    }
    return rows;
  }

  /** The state after applying every well-formed change in sequence (LSN) order: the source table's contents. */
  private static Map<Long, List<String>> reference(List<GeneratedRecord> generated) throws IOException {
    List<JsonNode> changes = new ArrayList<>();
    for (GeneratedRecord record : generated) {
      if (record.kind() == GeneratedRecord.Kind.EVENT) {
        changes.add(JSON.readTree(new String(record.value(), UTF_8)));
      }
    }
    changes.sort(Comparator.comparingLong(change -> change.path("source").path("lsn").asLong()));
    Map<Long, List<String>> state = new TreeMap<>();
    for (JsonNode change : changes) {
      String op = change.path("op").asText();
      switch (op) {
        case "t" -> state.clear();
        case "d" -> state.remove(change.path("before").path("id").asLong());
        default -> {
          JsonNode after = change.path("after");
          state.put(after.path("id").asLong(), List.of(after.path("name").asText(), after.path("email").asText(),
              after.path("country").asText(), after.path("tier").asText(),
              new java.math.BigDecimal(after.path("credit_limit").asText()).setScale(2).toPlainString(),
              after.path("created_at").asText(), after.path("updated_at").asText()));
        }
      }
    }
    return state;
  }

  private static void forgetLastCommit(String checkpoint) throws IOException {
    Path commits = Path.of(checkpoint, "commits");
    try (Stream<Path> files = Files.list(commits)) {
      Path last = files.filter(file -> file.getFileName().toString().matches("\\d+"))
          .max(Comparator.comparingLong(file -> Long.parseLong(file.getFileName().toString()))).orElseThrow();
      Files.delete(last);
      Files.deleteIfExists(commits.resolve("." + last.getFileName() + ".crc"));
    }
  }
}
