package io.tributary.localstack;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Change events of one source table as Debezium's PostgreSQL connector writes them with Kafka Connect's JSON
 * converter and its default {@code schemas.enable = true}: each value is the envelope's schema block and payload,
 * each key the primary key's. Written by hand (no Connect classes), for the demo and the benchmarks; the topic is
 * {@code <server>.<schema>.<table>} as the connector names it.
 *
 * @param server the connector's {@code topic.prefix} (and {@code source.name}, {@code source.db})
 */
public record DebeziumJsonTable(String server, String schema, String name, List<Column> columns) {

  /** A column as the JSON converter states it: its schema, whether it is part of the key, how a value is written. */
  public record Column(String name, String schemaJson, boolean key, Function<Object, String> json) {
    /** A nullable column of a plain Connect type (int32, int64, string, boolean, double, ...). */
    public static Column of(String name, String type) {
      return new Column(name, "{\"type\":\"" + type + "\",\"optional\":true,\"field\":\"" + name + "\"}", false,
          value -> value instanceof String text ? Json.string(text) : String.valueOf(value));
    }

    /** A primary key column. */
    public static Column key(String name, String type) {
      return new Column(name, "{\"type\":\"" + type + "\",\"optional\":false,\"field\":\"" + name + "\"}", true,
          value -> value instanceof String text ? Json.string(text) : String.valueOf(value));
    }

    /** Connect's {@code Decimal}: the unscaled value's bytes in base64, the JSON converter's default. */
    public static Column decimal(String name, int precision, int scale) {
      return new Column(name, "{\"type\":\"bytes\",\"optional\":true,\"name\":\"org.apache.kafka.connect.data.Decimal\""
          + ",\"version\":1,\"parameters\":{\"scale\":\"" + scale + "\",\"connect.decimal.precision\":\"" + precision
          + "\"},\"field\":\"" + name + "\"}", false, value -> Json.string(Base64.getEncoder().encodeToString(
              ((BigDecimal) value).setScale(scale).unscaledValue().toByteArray())));
    }

    /** Debezium's {@code MicroTimestamp}: a timestamp without zone, as microseconds since the epoch. */
    public static Column micros(String name) {
      return new Column(name, "{\"type\":\"int64\",\"optional\":true,\"name\":\"io.debezium.time.MicroTimestamp\""
          + ",\"version\":1,\"field\":\"" + name + "\"}", false, String::valueOf);
    }
  }

  public String topic() {
    return server + "." + schema + "." + name;
  }

  /** The Kafka key of a row: its key columns, with their schema. */
  public byte[] key(Map<String, Object> row) {
    List<Column> key = columns.stream().filter(Column::key).toList();
    return ("{\"schema\":{\"type\":\"struct\",\"fields\":[" + String.join(",", key.stream().map(Column::schemaJson)
        .toList()) + "],\"optional\":false,\"name\":\"" + topic() + ".Key\"},\"payload\":" + payload(row, key) + "}")
        .getBytes(UTF_8);
  }

  /**
   * A change event: op {@code r}, {@code c}, {@code u} or {@code d}, the row before (u, d) and after (r, c, u), the
   * change's LSN and time.
   */
  public byte[] change(String op, Map<String, Object> before, Map<String, Object> after, long lsn, long atMillis) {
    return ("{\"schema\":" + envelopeSchema() + ",\"payload\":{\"before\":" + payload(before, columns) + ",\"after\":"
        + payload(after, columns) + ",\"source\":{\"version\":\"3.6.1.Final\",\"connector\":\"postgresql\",\"name\":"
        + Json.string(server) + ",\"ts_ms\":" + atMillis + ",\"snapshot\":" + Json.string(op.equals("r") ? "true"
        : "false") + ",\"db\":" + Json.string(server) + ",\"schema\":" + Json.string(schema) + ",\"table\":"
        + Json.string(name) + ",\"txId\":" + (lsn / 8) + ",\"lsn\":" + lsn + "},\"op\":" + Json.string(op)
        + ",\"ts_ms\":" + (atMillis + 3) + "}}").getBytes(UTF_8);
  }

  private String envelopeSchema() {
    String row = "{\"type\":\"struct\",\"fields\":[" + String.join(",", columns.stream().map(Column::schemaJson)
        .toList()) + "],\"optional\":true,\"name\":\"" + topic() + ".Value\"";
    return "{\"type\":\"struct\",\"fields\":[" + row + ",\"field\":\"before\"}," + row + ",\"field\":\"after\"},"
        + "{\"type\":\"struct\",\"fields\":[{\"type\":\"string\",\"optional\":false,\"field\":\"version\"},"
        + "{\"type\":\"string\",\"optional\":false,\"field\":\"connector\"},"
        + "{\"type\":\"string\",\"optional\":false,\"field\":\"name\"},"
        + "{\"type\":\"int64\",\"optional\":false,\"field\":\"ts_ms\"},"
        + "{\"type\":\"string\",\"optional\":true,\"field\":\"snapshot\"},"
        + "{\"type\":\"string\",\"optional\":false,\"field\":\"db\"},"
        + "{\"type\":\"string\",\"optional\":false,\"field\":\"schema\"},"
        + "{\"type\":\"string\",\"optional\":false,\"field\":\"table\"},"
        + "{\"type\":\"int64\",\"optional\":true,\"field\":\"txId\"},"
        + "{\"type\":\"int64\",\"optional\":true,\"field\":\"lsn\"}],"
        + "\"optional\":false,\"name\":\"io.debezium.connector.postgresql.Source\",\"field\":\"source\"},"
        + "{\"type\":\"string\",\"optional\":false,\"field\":\"op\"},"
        + "{\"type\":\"int64\",\"optional\":true,\"field\":\"ts_ms\"}],"
        + "\"optional\":false,\"name\":\"" + topic() + ".Envelope\",\"version\":1}";
  }

  private static String payload(Map<String, Object> row, List<Column> columns) {
    if (row == null) {
      return "null";
    }
    List<String> fields = new ArrayList<>();
    for (Column column : columns) {
      Object value = row.get(column.name());
      fields.add(Json.string(column.name()) + ":" + (value == null ? "null" : column.json().apply(value)));
    }
    return "{" + String.join(",", fields) + "}";
  }
}
