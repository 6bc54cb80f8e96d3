package io.tributary.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.bronze.BronzeFixture;
import io.tributary.bronze.BronzeIngestJob;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.testing.SharedSpark;
import io.tributary.localstack.LocalKafkaBroker;
import io.tributary.localstack.testing.SharedKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Debezium entity whose change stream has a column no Spark column can hold (a PostgreSQL {@code numeric(65,4)}):
 * {@code tributary silver} fails with one line naming the table, the field and the way out, writes nothing, and
 * runs once the entity is given its columns.
 */
@ExtendWith({SharedSpark.class, SharedKafka.class})
class UnmappableColumnIT {
  private static final String DECIMAL_65 = "{\"type\":\"bytes\",\"optional\":true,\"name\":"
      + "\"org.apache.kafka.connect.data.Decimal\",\"version\":1,\"parameters\":{\"scale\":\"4\","
      + "\"connect.decimal.precision\":\"65\"},\"field\":\"total\"}";
  private static final String ROW = "{\"type\":\"struct\",\"optional\":true,\"name\":\"shop.public.ledger.Value\","
      + "\"fields\":[{\"type\":\"int64\",\"optional\":false,\"field\":\"id\"}," + DECIMAL_65 + "],\"field\":\"%s\"}";
  private static final String SOURCE = "{\"type\":\"struct\",\"optional\":false,\"name\":"
      + "\"io.debezium.connector.postgresql.Source\",\"field\":\"source\",\"fields\":["
      + "{\"type\":\"string\",\"optional\":false,\"field\":\"connector\"},"
      + "{\"type\":\"int64\",\"optional\":false,\"field\":\"ts_ms\"},"
      + "{\"type\":\"string\",\"optional\":false,\"field\":\"table\"},"
      + "{\"type\":\"int64\",\"optional\":true,\"field\":\"lsn\"}]}";
  private static final String SCHEMA = "{\"type\":\"struct\",\"optional\":false,\"name\":"
      + "\"shop.public.ledger.Envelope\",\"fields\":[" + ROW.formatted("before") + "," + ROW.formatted("after") + ","
      + SOURCE + ",{\"type\":\"string\",\"optional\":false,\"field\":\"op\"},"
      + "{\"type\":\"int64\",\"optional\":true,\"field\":\"ts_ms\"}]}";

  @Test
  void silverFailsWithOneLineNamingTheFieldAndWritesNothing(SparkSession spark, LocalKafkaBroker broker,
      @TempDir Path dir) throws Exception {
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(1, "ledger");
    // 1.2345 as Connect writes a decimal in JSON: the unscaled 12345, big-endian, in base64.
    String change = "{\"schema\":" + SCHEMA + ",\"payload\":{\"before\":null,\"after\":{\"id\":1,\"total\":\"MDk=\"},"
        + "\"source\":{\"connector\":\"postgresql\",\"ts_ms\":1764504000000,\"table\":\"ledger\",\"lsn\":100},"
        + "\"op\":\"c\",\"ts_ms\":1764504000000}}";
    fixture.send("ledger", List.of(new ProducerRecord<>(fixture.topic("ledger"),
        "{\"id\":1}".getBytes(StandardCharsets.UTF_8), change.getBytes(StandardCharsets.UTF_8))));
    String entity = "tributary.silver.entities.ledger { source = bronze.ledger, decoder = debezium-json,"
        + " table = silver.ledger, key = [id] %s }";
    Path file = dir.resolve("lakehouse.conf");
    Files.writeString(file, fixture.hocon(Map.of("ledger", "ledger"), entity.formatted("")));
    TributaryConfig config = TributaryConfig.load(file);
    new BronzeIngestJob(spark, config).runUntilCaughtUp();
    String table = config.catalog().name() + ".silver.ledger";

    CommandRun failed = silver(file);
    assertThat(failed.code()).as(failed.err()).isEqualTo(Tributary.FAILED);
    assertThat(failed.err().lines()).singleElement().asString().isEqualTo("tributary silver: " + table
        + ", field total: a decimal of precision 65 (scale 4), and Spark holds at most 38 digits; give the source"
        + " column a precision, have Debezium write it as a string (decimal.handling.mode = string), or give the"
        + " entity a schema");
    assertThat(spark.catalog().tableExists(table)).as("nothing written").isFalse();
    assertThat(spark.sql("SELECT count(*) FROM " + config.catalog().name() + "." + config.silver().quarantine())
        .first().getLong(0)).as("nothing quarantined: the record is good, the table cannot hold it").isZero();

    // The way out the line names: the entity's own columns, with the decimal kept as the text of its bytes.
    Files.writeString(file, fixture.hocon(Map.of("ledger", "ledger"),
        entity.formatted(", schema = \"id BIGINT, total STRING\"")));
    CommandRun loaded = silver(file);
    assertThat(loaded.code()).as(loaded.err()).isEqualTo(Tributary.OK);
    assertThat(spark.sql("SELECT id, total FROM " + table).collectAsList()).extracting(Object::toString)
        .containsExactly("[1,MDk=]");
  }

  private static CommandRun silver(Path config) {
    return CommandRun.of("silver", "--config", config.toString(), "--once");
  }
}
