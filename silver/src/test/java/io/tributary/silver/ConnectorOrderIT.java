package io.tributary.silver;

import static io.tributary.silver.ChangeDecoder.SchemaSource.CONFIG;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.testing.SharedSpark;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The order a debezium-json entity without {@code sequence} gives each connector's changes ({@link ConnectorOrder}),
 * on envelopes whose {@code source} blocks have the fields and shapes of the Debezium reference documentation. Each
 * connector's changes are written in their true order (a snapshot, then streamed changes with the connector's
 * hard cases: binlog rollover past six digits, several changes of one row in one transaction, LSN parts that roll
 * over, SCNs above 2^32, an oplog second that ends), then delivered shuffled, with the last ones re-sent as a
 * connector restart does. Sorted by the decoded sequence (the MERGE's order), every key's distinct changes come out
 * in their true order with no tie between two of them: the property both the current-state and the history merge
 * rely on.
 */
@ExtendWith(SharedSpark.class)
class ConnectorOrderIT {
  private static final int KEYS = 3;

  /** The {@code source} block of the i-th change in true order; changes cycle over the keys. */
  private record Connector(String name, int changes, IntFunction<String> source) {}

  @Test
  void postgresqlOrdersByLsn(SparkSession spark) {
    assertOrdered(spark, new Connector("postgresql", 12, i -> "{\"version\":\"3.6.1.Final\",\"connector\":"
        + "\"postgresql\",\"name\":\"shop\",\"ts_ms\":1764504000000,\"snapshot\":\"" + (i < KEYS ? "true" : "false")
        + "\",\"db\":\"shop\",\"sequence\":\"[\\\"24023119\\\",\\\"" + lsn(i) + "\\\"]\",\"schema\":\"public\","
        + "\"table\":\"customers\",\"txId\":" + (555 + i / 2) + ",\"lsn\":" + lsn(i) + ",\"xmin\":null}"));
  }

  private static long lsn(int i) {
    // The snapshot shares one LSN; a transaction's two changes are 8 bytes apart; LSNs pass 2^32.
    return i < KEYS ? 24023128L : 4294967000L + 8L * i;
  }

  @Test
  void mysqlAndMariadbOrderByBinlogFileNumberPositionAndRow(SparkSession spark) {
    for (String connector : List.of("mysql", "mariadb")) {
      assertOrdered(spark, new Connector(connector, 15, i -> {
        // Snapshot at one position; then events in mysql-bin.999999, a rollover to mysql-bin.1000000 (where a text
        // comparison would go wrong and positions start small again), and one event carrying three rows.
        String file = i < 9 ? "mysql-bin.999999" : "mysql-bin.1000000";
        long pos = i < KEYS ? 154 : i < 9 ? 2000 + 150L * i : i < 12 ? 4 + 90L * i : 2400;
        int row = i < 12 ? 0 : i - 12;
        return "{\"version\":\"3.6.1.Final\",\"connector\":\"" + connector + "\",\"name\":\"shop\",\"ts_ms\":"
            + "1764504000000,\"snapshot\":\"" + (i < KEYS ? "true" : "false") + "\",\"db\":\"inventory\","
            + "\"sequence\":null,\"table\":\"customers\",\"server_id\":223344,\"gtid\":null,\"file\":\"" + file
            + "\",\"pos\":" + pos + ",\"row\":" + row + ",\"thread\":7,\"query\":null}";
      }));
    }
  }

  @Test
  void sqlServerOrdersByCommitLsnChangeLsnAndSerialNumberAsHex(SparkSession spark) {
    assertOrdered(spark, new Connector("sqlserver", 12, i -> {
      // Snapshot: the commit LSN of the snapshot, no change LSN, no serial number. Streamed: a transaction per two
      // changes whose middle part rolls over ffffffff, and an update's two serial numbers.
      String commit = i < KEYS ? "00000025:fffffff0:0001" : hexLsn(0x25, 0xfffffffcL + i / 2, 5);
      String change = i < KEYS ? null : hexLsn(0x25, 0xfffffffcL + i / 2, i % 2 == 0 ? 2 : 3);
      return "{\"version\":\"3.6.1.Final\",\"connector\":\"sqlserver\",\"name\":\"server1\",\"ts_ms\":"
          + "1559729468470,\"snapshot\":\"" + (i < KEYS ? "true" : "false") + "\",\"db\":\"testDB\",\"schema\":"
          + "\"dbo\",\"table\":\"customers\",\"change_lsn\":" + (change == null ? "null" : "\"" + change + "\"")
          + ",\"commit_lsn\":\"" + commit + "\",\"event_serial_no\":" + (i < KEYS ? "null" : "\"" + (1 + i % 2) + "\"")
          + "}";
    }));
  }

  /** A SQL Server LSN as Debezium prints it; a middle part past 32 bits carries into the first. */
  private static String hexLsn(long first, long middle, int last) {
    return String.format("%08x:%08x:%04x", first + (middle >>> 32), middle & 0xffffffffL, last);
  }

  @Test
  void oracleOrdersByScnCommitScnAndTransactionSequence(SparkSession spark) {
    assertOrdered(spark, new Connector("oracle", 12, i -> {
      // Snapshot at one SCN without a commit SCN; streamed changes above 2^32, two of them sharing an SCN in one
      // transaction (told apart by txSeq).
      long scn = i < KEYS ? 2122184 : 5000000000L + 10L * (i / 2);
      String commit = i < KEYS ? "" : ",\"commit_scn\":\"" + (5000000000L + 10L * (i / 2) + 5) + "\"";
      String txSeq = i < KEYS ? "" : ",\"txSeq\":" + (1 + i % 2);
      return "{\"version\":\"3.6.1.Final\",\"connector\":\"oracle\",\"name\":\"server1\",\"ts_ms\":1583411479000,"
          + "\"snapshot\":\"" + (i < KEYS ? "true" : "false") + "\",\"db\":\"ORCLPDB1\",\"schema\":\"DEBEZIUM\","
          + "\"table\":\"CUSTOMERS\",\"txId\":\"6.28." + (807 + i / 2) + "\",\"scn\":\"" + scn + "\"" + commit
          + ",\"rs_id\":\"0x00000e.000059e4.0010\",\"ssn\":0,\"redo_thread\":1" + txSeq + "}";
    }));
  }

  @Test
  void db2OrdersByCommitLsnAndChangeLsnAsHex(SparkSession spark) {
    assertOrdered(spark, new Connector("db2", 12, i -> {
      String commit = i < KEYS ? lsn16(0x150f) : lsn16(0xfffffffcL + i / 2);
      String change = i < KEYS ? "NULL" : lsn16(0xfffffffcL + i / 2 - 1 + i % 2);
      return "{\"version\":\"3.6.1.Final\",\"connector\":\"db2\",\"name\":\"db2server\",\"ts_ms\":1559729468470,"
          + "\"snapshot\":\"" + (i < KEYS ? "true" : "false") + "\",\"db\":\"TESTDB\",\"schema\":\"DB2INST1\","
          + "\"table\":\"CUSTOMERS\",\"change_lsn\":\"" + change + "\",\"commit_lsn\":\"" + commit + "\"}";
    }));
  }

  /** A Db2 LSN (16 bytes) as Debezium prints it. */
  private static String lsn16(long low) {
    String hex = String.format("%032x", low);
    return hex.substring(0, 8) + ":" + hex.substring(8, 16) + ":" + hex.substring(16);
  }

  @Test
  void mongodbOrdersByClusterTimeAndIncrement(SparkSession spark) {
    assertOrdered(spark, new Connector("mongodb", 12, i -> {
      // Four changes per second of cluster time; the increment starts again each second.
      long seconds = 1558965508L + i / 4;
      return "{\"version\":\"3.6.1.Final\",\"connector\":\"mongodb\",\"name\":\"fulfillment\",\"ts_ms\":"
          + seconds * 1000 + ",\"snapshot\":\"false\",\"db\":\"inventory\",\"rs\":\"rs0\",\"collection\":"
          + "\"customers\",\"ord\":" + (1 + i % 4) + ",\"lsid\":null,\"txnNumber\":null}";
    }));
  }

  @Test
  void changesThatCannotBeOrderedSayWhy(SparkSession spark) {
    String after = ",\"after\":{\"id\":1,\"name\":\"x\"},\"op\":\"u\",\"ts_ms\":1}";
    List<String> reasons = new ArrayList<>();
    List<Row> rows = new ArrayList<>(decode(spark, List.of(
        "{\"before\":null,\"source\":{\"lsn\":5}" + after,
        "{\"before\":null,\"source\":{\"connector\":\"cassandra\",\"lsn\":5}" + after,
        "{\"before\":null,\"source\":{\"connector\":\"mysql\",\"pos\":5,\"row\":0}" + after,
        "{\"before\":null,\"source\":{\"connector\":\"mysql\",\"file\":\"mysql-bin.000003\",\"pos\":\"abc\"}" + after,
        "{\"before\":null,\"source\":{\"connector\":\"sqlserver\",\"commit_lsn\":\"0025:0758\"}" + after,
        "{\"before\":null,\"source\":{\"connector\":\"postgresql\",\"lsn\":\"2026-01-01T00:00:00Z\"}" + after)));
    rows.sort(java.util.Comparator.comparingLong(row -> row.getLong(4)));
    for (Row row : rows) {
      reasons.add(row.getString(2));
    }
    assertThat(reasons).containsExactly(
        "missing source.connector, which chooses the order of the changes; give the entity a sequence",
        "unknown source.connector 'cassandra' (known: postgresql, mysql, mariadb, sqlserver, oracle, db2, mongodb);"
            + " give the entity a sequence",
        "missing sequence source.file (mysql)",
        "sequence source.pos (mysql): 'abc' is not an integer",
        "sequence source.commit_lsn (sqlserver): '0025:0758' is not an LSN of 20 hex digits",
        "sequence source.lsn (postgresql): '2026-01-01T00:00:00Z' is not an integer");
  }

  /**
   * The order was SQL (a CASE per connector and part) until it moved into Java for the size of the generated code;
   * silver tables hold sequences that SQL computed, and the merge compares new changes with them, so the Java must
   * read every text as the SQL did. Every part of every connector gets texts at the edges of Spark's casts and
   * patterns (signs, spaces, fractions, overflow, the text NULL, a trailing newline, lower-case hex, wrong widths),
   * the others valid. The reasons must match for all of them; the sequences, and the bytes the guard compares,
   * wherever the change is not quarantined (a quarantined change's sequence is never read).
   */
  @Test
  void theJavaOrderReadsEveryTextAsTheSqlItReplaced(SparkSession spark) {
    List<String> texts = List.of("", "0", "42", " 42 ", "+42", "-7", "1.5", "4.0", "9223372036854775807",
        "9223372036854775808", "-9223372036854775808", "abc", "1e3", "\\t9\\n", "mysql-bin.000003",
        "mysql-bin.1000000", "bin.", ".5", "mysql-bin.000003\\n", "x.99999999999999999999", "NULL", "null",
        "0000002d:00000a58:0003", "0000002D:00000A58:0003\\n", "0000002d:00000a58:003", "0000002d 00000a58 0003",
        "00000000:0000150f:0000000000000000", "00000000:0000150F:00000000:00000000",
        "0000000000000000000000000000150g", "ffffffff:ffffffff:ffff");
    Map<String, Map<String, String>> valid = new LinkedHashMap<>();
    valid.put("postgresql", Map.of("lsn", "24023128"));
    valid.put("mysql", Map.of("file", "mysql-bin.000003", "pos", "154", "row", "0"));
    valid.put("mariadb", Map.of("file", "mysql-bin.000003", "pos", "154", "row", "0"));
    valid.put("sqlserver", Map.of("commit_lsn", "00000025:00000758:0003", "change_lsn", "00000025:00000758:0005",
        "event_serial_no", "1"));
    valid.put("oracle", Map.of("scn", "2122184", "commit_scn", "2122185", "txSeq", "1"));
    valid.put("db2", Map.of("commit_lsn", "00000000:0000150f:0000000000000000",
        "change_lsn", "00000000:0000150f:0000000000000001"));
    valid.put("mongodb", Map.of("ts_ms", "1558965508000", "ord", "3"));
    List<String> sources = new ArrayList<>(List.of("null", "{}", "{\"lsn\":5}", "{\"connector\":\"cassandra\"}",
        "{\"connector\":\"PostgreSQL\",\"lsn\":5}", "{\"connector\":null,\"lsn\":5}"));
    valid.forEach((connector, parts) -> {
      sources.add(source(connector, parts, null, null));
      for (String part : parts.keySet()) {
        sources.add(source(connector, parts, part, null));
        for (String text : texts) {
          sources.add(source(connector, parts, part, "\"" + text + "\""));
        }
        for (String number : List.of("42", "-7", "1.5", "1e3", "9223372036854775808", "true")) {
          sources.add(source(connector, parts, part, number));
        }
      }
    });
    List<String> values = sources.stream()
        .map(source -> "{\"after\":{\"id\":1},\"source\":" + source + ",\"op\":\"c\"}").toList();
    StructType envelope = JsonFields.schemaOf(ConnectorOrder.paths());
    byte[][] bytes = values.stream().map(value -> value.getBytes(UTF_8)).toArray(byte[][]::new);
    List<Row> rows = DecodersIT.bronze(spark, bytes)
        .withColumn("_read", JsonEnvelopeReader.read(functions.col("value"), envelope,
            JsonEnvelopeReader.Kind.DEBEZIUM))
        .withColumn("_env", functions.expr("_read.fields"))
        .withColumn("java", ConnectorOrder.read(functions.col("_env.source"),
            (StructType) envelope.apply("source").dataType()))
        .selectExpr("offset", "_read.problem", "java.seq", "java.problem", SqlOrder.sequence("_env"),
            "CASE " + SqlOrder.checks("_env") + " END", "java.bytes")
        .orderBy("offset").collectAsList();
    assertThat(rows).hasSize(values.size());
    int ordered = 0;
    for (Row row : rows) {
      String value = values.get((int) row.getLong(0));
      assertThat(row.isNullAt(1)).as("valid JSON: %s", value).isTrue();
      assertThat(row.getString(3)).as("the reason for %s", value).isEqualTo(row.getString(5));
      if (row.isNullAt(5)) {
        assertThat(row.<Long>getList(2)).as("the sequence of %s", value).isEqualTo(row.<Long>getList(4));
        assertThat((byte[]) row.get(6)).as("the sequence bytes of %s", value)
            .isEqualTo(SequenceBytes.bytes(row.<Long>getList(4)));
        ordered++;
      }
    }
    // Both kinds are many: the texts at the edges split between orderable and quarantined.
    assertThat(ordered).isGreaterThan(100);
    assertThat(rows.size() - ordered).isGreaterThan(100);
  }

  /** A source block of {@code connector}: its valid parts, with {@code part} given {@code json} (absent if null). */
  private static String source(String connector, Map<String, String> parts, String part, String json) {
    StringBuilder block = new StringBuilder("{\"connector\":\"" + connector + "\"");
    parts.forEach((name, text) -> {
      if (!name.equals(part)) {
        block.append(",\"").append(name).append("\":\"").append(text).append("\"");
      } else if (json != null) {
        block.append(",\"").append(name).append("\":").append(json);
      }
    });
    return block.append("}").toString();
  }

  /** The order as SQL, as releases before the Java reader computed it: the reference the reader must match. */
  private static final class SqlOrder {
    private record Part(String path, String kind, int hexDigits, boolean required) {}

    private static final Map<String, List<Part>> CONNECTORS = new LinkedHashMap<>();

    static {
      List<Part> binlog = List.of(new Part("source.file", "file", 0, true), new Part("source.pos", "int", 0, true),
          new Part("source.row", "int", 0, false));
      CONNECTORS.put("postgresql", List.of(new Part("source.lsn", "int", 0, true)));
      CONNECTORS.put("mysql", binlog);
      CONNECTORS.put("mariadb", binlog);
      CONNECTORS.put("sqlserver", List.of(new Part("source.commit_lsn", "hex", 20, true),
          new Part("source.change_lsn", "hex", 20, false), new Part("source.event_serial_no", "int", 0, false)));
      CONNECTORS.put("oracle", List.of(new Part("source.scn", "int", 0, true),
          new Part("source.commit_scn", "int", 0, false), new Part("source.txSeq", "int", 0, false)));
      CONNECTORS.put("db2", List.of(new Part("source.commit_lsn", "hex", 32, true),
          new Part("source.change_lsn", "hex", 32, false)));
      CONNECTORS.put("mongodb", List.of(new Part("source.ts_ms", "int", 0, true),
          new Part("source.ord", "int", 0, true)));
    }

    static String sequence(String struct) {
      StringBuilder sql = new StringBuilder("CASE " + struct + ".source.connector");
      CONNECTORS.forEach((name, parts) -> {
        List<String> elements = new ArrayList<>();
        for (Part part : parts) {
          String text = struct + "." + part.path();
          switch (part.kind()) {
            case "int" -> elements.add("coalesce(try_cast(" + text + " AS BIGINT), 0)");
            case "file" -> elements.add("try_cast(regexp_extract(" + text + ", '[.]([0-9]+)$', 1) AS BIGINT)");
            default -> {
              for (int start = 1; start <= part.hexDigits(); start += 8) {
                elements.add("coalesce(try_cast(conv(substring(replace(" + text + ", ':', ''), " + start
                    + ", 8), 16, 10) AS BIGINT), 0)");
              }
            }
          }
        }
        sql.append(" WHEN '").append(name).append("' THEN array(").append(String.join(", ", elements)).append(")");
      });
      return sql.append(" END").toString();
    }

    static String checks(String struct) {
      String connector = struct + ".source.connector";
      List<String> checks = new ArrayList<>();
      checks.add("WHEN " + connector + " IS NULL THEN 'missing source.connector, which chooses the order of the"
          + " changes; give the entity a sequence'");
      checks.add("WHEN " + connector + " NOT IN ('postgresql', 'mysql', 'mariadb', 'sqlserver', 'oracle', 'db2',"
          + " 'mongodb') THEN concat('unknown source.connector ''', " + connector + ", ''' (known: postgresql, mysql,"
          + " mariadb, sqlserver, oracle, db2, mongodb); give the entity a sequence')");
      CONNECTORS.forEach((name, parts) -> {
        for (Part part : parts) {
          String isIt = connector + " = '" + name + "'";
          String text = struct + "." + part.path();
          String what = part.path() + " (" + name + ")";
          if (part.required()) {
            checks.add("WHEN " + isIt + " AND " + text + " IS NULL THEN 'missing sequence " + what + "'");
          }
          String valid = switch (part.kind()) {
            case "int" -> "try_cast(" + text + " AS BIGINT) IS NOT NULL";
            case "file" -> text + " RLIKE '[.][0-9]+$'";
            default -> text + " = 'NULL' OR replace(" + text + ", ':', '') RLIKE '^[0-9a-fA-F]{" + part.hexDigits()
                + "}$'";
          };
          String describe = switch (part.kind()) {
            case "int" -> "an integer";
            case "file" -> "a binlog file name ending in its number";
            default -> "an LSN of " + part.hexDigits() + " hex digits";
          };
          checks.add("WHEN " + isIt + " AND " + text + " IS NOT NULL AND NOT (" + valid + ") THEN concat('sequence "
              + what + ": ''', " + text + ", ''' is not " + describe + "')");
        }
      });
      return String.join(" ", checks);
    }
  }

  /**
   * Writes the connector's changes in true order, delivers them shuffled with the last four re-sent, and checks
   * that sorting by the decoded sequence gives each key's changes in true order, a re-sent change equal to its
   * original and two distinct changes never equal.
   */
  private static void assertOrdered(SparkSession spark, Connector connector) {
    List<String> truth = new ArrayList<>();
    for (int i = 0; i < connector.changes(); i++) {
      String op = i < KEYS ? "r" : "u";
      truth.add("{\"before\":null,\"after\":{\"id\":" + (i % KEYS) + ",\"name\":\"change " + i + "\"},\"source\":"
          + connector.source().apply(i) + ",\"op\":\"" + op + "\",\"ts_ms\":1764504000123}");
    }
    List<String> delivered = new ArrayList<>(truth);
    Collections.shuffle(delivered, new Random(connector.name().hashCode()));
    delivered.addAll(truth.subList(truth.size() - 4, truth.size()));

    Map<Long, List<String>> perKey = new LinkedHashMap<>();
    Map<Long, List<List<Long>>> sequences = new LinkedHashMap<>();
    for (Row row : decode(spark, delivered)) {
      assertThat(row.isNullAt(2)).as("%s: no error, got %s", connector.name(), row.get(2)).isTrue();
      long key = row.getLong(0);
      List<String> changes = perKey.computeIfAbsent(key, k -> new ArrayList<>());
      List<List<Long>> seqs = sequences.computeIfAbsent(key, k -> new ArrayList<>());
      List<Long> seq = row.getList(1);
      if (!changes.isEmpty() && changes.get(changes.size() - 1).equals(row.getString(3))) {
        assertThat(seq).as("%s: a re-sent change has its original's sequence", connector.name())
            .isEqualTo(seqs.get(seqs.size() - 1));
        continue;
      }
      if (!seqs.isEmpty()) {
        assertThat(seq).as("%s: two changes of key %d share a sequence", connector.name(), key)
            .isNotEqualTo(seqs.get(seqs.size() - 1));
      }
      changes.add(row.getString(3));
      seqs.add(seq);
    }
    for (long key = 0; key < KEYS; key++) {
      List<String> expected = new ArrayList<>();
      for (int i = (int) key; i < connector.changes(); i += KEYS) {
        expected.add("change " + i);
      }
      assertThat(perKey.get(key)).as("%s: key %d in sequence order", connector.name(), key).isEqualTo(expected);
    }
  }

  /** Decodes the values (Kafka offsets in list order); rows of key, seq, envelope error, name, sorted as the MERGE. */
  private static List<Row> decode(SparkSession spark, List<String> values) {
    byte[][] bytes = values.stream().map(value -> value.getBytes(UTF_8)).toArray(byte[][]::new);
    return new DebeziumJsonDecoder(List.of(), CONFIG).envelopes(DecodersIT.bronze(spark, bytes))
        .selectExpr("try_cast(get_json_object(image, '$.id') AS BIGINT) AS id", "seq", "envelope_error",
            "get_json_object(image, '$.name') AS name", "offset")
        .orderBy("seq", "offset")
        .collectAsList();
  }
}
