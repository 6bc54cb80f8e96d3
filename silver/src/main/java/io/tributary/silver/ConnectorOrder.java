package io.tributary.silver;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

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

  /**
   * The order of the envelope's {@code source} block (a {@link JsonFields#schemaOf} struct of {@link #paths}), as a
   * struct of {@code seq} (ARRAY&lt;BIGINT&gt;; null for a missing or unknown connector), {@code bytes} (its
   * {@link SequenceBytes}, made here from the Java list: Spark's conversion of the array for a function of it cost
   * more than the function) and {@code problem} (null, or why the change cannot be ordered: its quarantine reason).
   *
   * <p>Java rather than SQL: as a CASE per connector and part, the order was two thirds of the decode stage's
   * generated method (22 KB of 33 KB of bytecode), which the JIT compiles late or not at all, so that a fresh JVM
   * decoded its first batches in the interpreter.
   */
  static Column read(Column source, StructType sourceType) {
    StructType output = new StructType()
        .add("seq", DataTypes.createArrayType(DataTypes.LongType, true))
        .add("bytes", DataTypes.BinaryType)
        .add("problem", DataTypes.StringType);
    return functions.udf(new Positions(sourceType), output).apply(source);
  }

  /** Reads each connector's position from the {@code source} block's texts. */
  private static final class Positions implements UDF1<Row, Row> {
    private static final long serialVersionUID = 1L;
    private static final Pattern BINLOG_NUMBER = Pattern.compile("[.]([0-9]+)$");
    private static final String MISSING = "missing " + CONNECTOR + ", which chooses the order of the changes; give"
        + " the entity a sequence";

    /** Where {@code source.connector} is in the block. */
    private final int connectorAt;
    /** Per connector (as {@link #CONNECTORS}), per part, where its text is in the block. */
    private final int[][] partAt;
    /** Per connector, per hex part, the pattern a valid LSN (colons removed) matches; null for other parts. */
    private final Pattern[][] lsnPatterns;

    Positions(StructType sourceType) {
      this.connectorAt = sourceType.fieldIndex(leaf(CONNECTOR));
      this.partAt = new int[CONNECTORS.size()][];
      this.lsnPatterns = new Pattern[CONNECTORS.size()][];
      for (int c = 0; c < CONNECTORS.size(); c++) {
        List<Part> parts = CONNECTORS.get(c).parts();
        partAt[c] = new int[parts.size()];
        lsnPatterns[c] = new Pattern[parts.size()];
        for (int p = 0; p < parts.size(); p++) {
          partAt[c][p] = sourceType.fieldIndex(leaf(parts.get(p).path()));
          if (parts.get(p).kind() == Kind.HEX) {
            lsnPatterns[c][p] = Pattern.compile("^[0-9a-fA-F]{" + parts.get(p).hexDigits() + "}$");
          }
        }
      }
    }

    private static String leaf(String path) {
      return path.substring(path.indexOf('.') + 1);
    }

    @Override
    public Row call(Row source) {
      String connector = source == null ? null : source.getString(connectorAt);
      if (connector == null) {
        return RowFactory.create(null, null, MISSING);
      }
      int which = 0;
      while (which < CONNECTORS.size() && !CONNECTORS.get(which).name().equals(connector)) {
        which++;
      }
      if (which == CONNECTORS.size()) {
        return RowFactory.create(null, null, "unknown " + CONNECTOR + " '" + connector + "' (known: "
            + String.join(", ", connectors()) + "); give the entity a sequence");
      }
      List<Part> parts = CONNECTORS.get(which).parts();
      List<Long> seq = new ArrayList<>();
      String problem = null;
      for (int p = 0; p < parts.size(); p++) {
        Part part = parts.get(p);
        String text = source.getString(partAt[which][p]);
        boolean fits = read(text, part, lsnPatterns[which][p], seq);
        if (problem == null) {
          String what = part.path() + " (" + connector + ")";
          if (text == null && part.required()) {
            problem = "missing sequence " + what;
          } else if (!fits) {
            problem = "sequence " + what + ": '" + text + "' is not " + describe(part);
          }
        }
      }
      return RowFactory.create(seq, SequenceBytes.bytes(seq), problem);
    }

    /**
     * Adds the elements of one part to {@code seq} (a missing integer or LSN counts as zero, a missing binlog file as
     * null) and says whether its text, where there is one, is what the part holds; each text is read once for both.
     */
    private static boolean read(String text, Part part, Pattern lsn, List<Long> seq) {
      return switch (part.kind()) {
        case INTEGER -> {
          Long number = text == null ? null : integer(text);
          seq.add(number == null ? 0L : number);
          yield text == null || number != null;
        }
        case BINLOG_FILE -> {
          Matcher number = text == null ? null : BINLOG_NUMBER.matcher(text);
          boolean found = number != null && number.find();
          seq.add(found ? integer(number.group(1)) : null);
          yield text == null || found;
        }
        case HEX -> {
          // Fixed width, so comparing 8-digit parts (each below 2^32) in turn compares the whole unsigned number.
          String digits = text == null ? "" : text.replace(":", "");
          for (int start = 0; start < part.hexDigits(); start += 8) {
            seq.add(hexPrefix(digits.substring(Math.min(start, digits.length()),
                Math.min(start + 8, digits.length()))));
          }
          // Debezium writes a missing LSN as the text NULL.
          yield text == null || text.equals("NULL") || lsn.matcher(digits).find();
        }
      };
    }

    /**
     * The text as a whole number the way Spark's {@code try_cast(... AS BIGINT)} reads it (the ordering of tables
     * written before this was Java depends on it), or null.
     */
    private static Long integer(String text) {
      try {
        return UTF8String.fromString(text).toLongExact();
      } catch (NumberFormatException e) {
        return null;
      }
    }

    /**
     * The number in the leading hex digits of an LSN's part, 0 without any: Debezium writes a missing LSN as the
     * text NULL, which counts as zero.
     */
    private static long hexPrefix(String part) {
      long value = 0;
      for (int i = 0; i < part.length() && Character.digit(part.charAt(i), 16) >= 0; i++) {
        value = value * 16 + Character.digit(part.charAt(i), 16);
      }
      return value;
    }

  }

  private static String describe(Part part) {
    return switch (part.kind()) {
      case INTEGER -> "an integer";
      case BINLOG_FILE -> "a binlog file name ending in its number";
      case HEX -> "an LSN of " + part.hexDigits() + " hex digits";
    };
  }
}
