package io.tributary.silver;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The order of a key's changes as each Debezium connector states it in the envelope's {@code source} block, chosen
 * per record from {@code source.connector}: the sequence of a debezium-json entity that names no {@code sequence}.
 * Each connector's position becomes ARRAY&lt;BIGINT&gt; compared element by element (ties: Kafka partition and
 * offset, which follow the connector's own emit order for one key):
 * <ul>
 *   <li>{@code postgresql}: the change's LSN.
 *   <li>{@code mysql}, {@code mariadb}: the binlog file's number (so {@code mysql-bin.000010} follows
 *       {@code .000009} at any width), the event's position in it, the row within the event.
 *   <li>{@code sqlserver}: commit LSN, change LSN, event serial number; an LSN is 10 bytes in hex
 *       ({@code 0000002d:00000a58:0003}) and is compared as the unsigned number it is, in 4-byte parts.
 *   <li>{@code oracle}: SCN, commit SCN, the event's place in its transaction ({@code txSeq}).
 *   <li>{@code db2}: commit LSN, change LSN (16 bytes in hex each).
 *   <li>{@code mongodb}: the cluster time's seconds ({@code ts_ms}) and its increment ({@code ord}).
 * </ul>
 * A snapshot read has no change LSN, commit SCN, serial number or transaction place: those count as zero, so it
 * sorts before every streamed change of its key. A MySQL GTID orders transactions of one server only, and the
 * envelope carries the event's GTID, not the server's executed set, so it cannot order changes across a fail-over:
 * binlog coordinates do, as long as the connector reads one server's binlog (after a fail-over to a server whose
 * binlog numbering restarts, rebuild the entity or give {@code sequence} explicitly).
 */
final class ConnectorOrder {
  /** How one element of a position is read from its text. */
  private enum Kind { INTEGER, BINLOG_FILE, HEX }

  /**
   * One field of a connector's position.
   *
   * @param hexDigits for a hex LSN, its digits without the colons (it becomes {@code hexDigits / 8} elements)
   * @param required whether every change carries it (otherwise a missing one counts as zero)
   */
  private record Part(String path, Kind kind, int hexDigits, boolean required) {
    static Part integer(String path, boolean required) {
      return new Part(path, Kind.INTEGER, 0, required);
    }

    static Part lsn(String path, int hexDigits, boolean required) {
      return new Part(path, Kind.HEX, hexDigits, required);
    }
  }

  private record Connector(String name, List<Part> parts) {}

  private static final List<Connector> CONNECTORS = List.of(
      new Connector("postgresql", List.of(Part.integer("source.lsn", true))),
      new Connector("mysql", binlog()),
      new Connector("mariadb", binlog()),
      new Connector("sqlserver", List.of(Part.lsn("source.commit_lsn", 20, true),
          Part.lsn("source.change_lsn", 20, false), Part.integer("source.event_serial_no", false))),
      new Connector("oracle", List.of(Part.integer("source.scn", true), Part.integer("source.commit_scn", false),
          Part.integer("source.txSeq", false))),
      new Connector("db2", List.of(Part.lsn("source.commit_lsn", 32, true),
          Part.lsn("source.change_lsn", 32, false))),
      new Connector("mongodb", List.of(Part.integer("source.ts_ms", true), Part.integer("source.ord", true))));

  static final String CONNECTOR = "source.connector";

  private ConnectorOrder() {}

  private static List<Part> binlog() {
    return List.of(new Part("source.file", Kind.BINLOG_FILE, 0, true), Part.integer("source.pos", true),
        Part.integer("source.row", false));
  }

  /** The connectors whose order is known, for messages. */
  static List<String> connectors() {
    return CONNECTORS.stream().map(Connector::name).toList();
  }

  /** Every envelope path the orders read, {@code source.connector} first. */
  static List<String> paths() {
    Set<String> paths = new LinkedHashSet<>(List.of(CONNECTOR));
    CONNECTORS.forEach(connector -> connector.parts().forEach(part -> paths.add(part.path())));
    return List.copyOf(paths);
  }

  /** The sequence as ARRAY&lt;BIGINT&gt; of the parsed envelope {@code struct}; null for an unknown connector. */
  static String sequence(String struct) {
    StringBuilder sql = new StringBuilder("CASE " + JsonFields.column(struct, CONNECTOR));
    for (Connector connector : CONNECTORS) {
      List<String> elements = new ArrayList<>();
      for (Part part : connector.parts()) {
        elements.addAll(elements(JsonFields.column(struct, part.path()), part));
      }
      sql.append(" WHEN ").append(JsonFields.literal(connector.name())).append(" THEN array(")
          .append(String.join(", ", elements)).append(")");
    }
    return sql.append(" END").toString();
  }

  /** CASE branches saying why the envelope cannot be ordered (none matches when it can). */
  static String checks(String struct) {
    String connectorColumn = JsonFields.column(struct, CONNECTOR);
    List<String> checks = new ArrayList<>();
    checks.add("WHEN " + connectorColumn + " IS NULL THEN " + JsonFields.literal("missing " + CONNECTOR
        + ", which chooses the order of the changes; give the entity a sequence"));
    checks.add("WHEN " + connectorColumn + " NOT IN (" + String.join(", ", connectors().stream()
        .map(JsonFields::literal).toList()) + ") THEN concat(" + JsonFields.literal("unknown " + CONNECTOR + " '")
        + ", " + connectorColumn + ", " + JsonFields.literal("' (known: " + String.join(", ", connectors())
            + "); give the entity a sequence") + ")");
    for (Connector connector : CONNECTORS) {
      String isIt = connectorColumn + " = " + JsonFields.literal(connector.name());
      for (Part part : connector.parts()) {
        String text = JsonFields.column(struct, part.path());
        String what = part.path() + " (" + connector.name() + ")";
        if (part.required()) {
          checks.add("WHEN " + isIt + " AND " + text + " IS NULL THEN " + JsonFields.literal("missing sequence "
              + what));
        }
        checks.add("WHEN " + isIt + " AND " + text + " IS NOT NULL AND NOT (" + valid(text, part) + ") THEN concat("
            + JsonFields.literal("sequence " + what + ": '") + ", " + text + ", "
            + JsonFields.literal("' is not " + describe(part)) + ")");
      }
    }
    return String.join(" ", checks);
  }

  private static List<String> elements(String text, Part part) {
    return switch (part.kind()) {
      case INTEGER -> List.of("coalesce(try_cast(" + text + " AS BIGINT), 0)");
      case BINLOG_FILE -> List.of("try_cast(regexp_extract(" + text + ", '[.]([0-9]+)$', 1) AS BIGINT)");
      case HEX -> {
        // Fixed width, so comparing 8-digit parts (each below 2^32) in turn compares the whole unsigned number.
        String digits = "replace(" + text + ", ':', '')";
        List<String> parts = new ArrayList<>();
        for (int start = 1; start <= part.hexDigits(); start += 8) {
          parts.add("coalesce(try_cast(conv(substring(" + digits + ", " + start + ", 8), 16, 10) AS BIGINT), 0)");
        }
        yield parts;
      }
    };
  }

  private static String valid(String text, Part part) {
    return switch (part.kind()) {
      case INTEGER -> "try_cast(" + text + " AS BIGINT) IS NOT NULL";
      case BINLOG_FILE -> text + " RLIKE '[.][0-9]+$'";
      // Debezium writes a missing LSN as the text NULL.
      case HEX -> text + " = 'NULL' OR replace(" + text + ", ':', '') RLIKE '^[0-9a-fA-F]{" + part.hexDigits()
          + "}$'";
    };
  }

  private static String describe(Part part) {
    return switch (part.kind()) {
      case INTEGER -> "an integer";
      case BINLOG_FILE -> "a binlog file name ending in its number";
      case HEX -> "an LSN of " + part.hexDigits() + " hex digits";
    };
  }
}
