package io.tributary.silver;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

/**
 * The truncates an entity has seen, kept in the silver table's properties: a truncate clears every row older than
 * it, and a change older than it that arrives later must not bring a row back (in history mode it is kept as
 * history, followed by the truncate's marker).
 */
final class Truncates {
  static final String PROPERTY = "tributary.truncates";

  /** One truncate: its sequence, its time in the source and its Kafka coordinates. */
  record Truncate(List<Long> seq, long tsMs, String topic, int partition, long offset) {
    String encode() {
      return String.join(",", seq.stream().map(String::valueOf).toList()) + "|" + tsMs + "|" + topic + "|" + partition
          + "|" + offset;
    }

    static Truncate decode(String text) {
      String[] parts = text.split("\\|");
      List<Long> seq = Arrays.stream(parts[0].split(",")).map(Long::parseLong).toList();
      return new Truncate(seq, Long.parseLong(parts[1]), parts[2], Integer.parseInt(parts[3]),
          Long.parseLong(parts[4]));
    }

    /**
     * A predicate: the sequence in {@code column} orders before this truncate. Spelled element by element because
     * Iceberg cannot turn an array literal into a filter when it plans a DELETE or UPDATE.
     */
    String olderThan(String column) {
      List<String> alternatives = new ArrayList<>();
      for (int i = 0; i < seq.size(); i++) {
        StringBuilder alternative = new StringBuilder();
        for (int j = 0; j < i; j++) {
          alternative.append("try_element_at(").append(column).append(", ").append(j + 1).append(") = ")
              .append(seq.get(j)).append("L AND ");
        }
        alternative.append("try_element_at(").append(column).append(", ").append(i + 1).append(") < ").append(seq.get(i))
            .append('L');
        alternatives.add("(" + alternative + ")");
      }
      return "(" + String.join(" OR ", alternatives) + ")";
    }

    /** The sequence as a SQL literal of type ARRAY&lt;BIGINT&gt;. */
    String seqLiteral() {
      return "CAST(array(" + String.join(", ", seq.stream().map(value -> value + "L").toList()) + ") AS ARRAY<BIGINT>)";
    }
  }

  private Truncates() {}

  static List<Truncate> of(SilverTable table) {
    String value = table.properties().get(PROPERTY);
    List<Truncate> truncates = new ArrayList<>();
    if (value != null && !value.isEmpty()) {
      for (String entry : value.split(";")) {
        truncates.add(Truncate.decode(entry));
      }
    }
    return truncates;
  }

  /** Records the batch's truncates before its data is merged, so a replay finds them already there. */
  static List<Truncate> remember(SilverTable table, List<Truncate> seen) {
    TreeSet<String> all = new TreeSet<>();
    for (Truncate truncate : of(table)) {
      all.add(truncate.encode());
    }
    boolean changed = false;
    for (Truncate truncate : seen) {
      changed |= all.add(truncate.encode());
    }
    if (changed) {
      table.setProperty(PROPERTY, String.join(";", all));
    }
    return all.stream().map(Truncate::decode).toList();
  }

  /** The newest truncate by sequence, or null. */
  static Truncate latest(List<Truncate> truncates) {
    Truncate latest = null;
    for (Truncate truncate : truncates) {
      if (latest == null || compare(truncate.seq(), latest.seq()) > 0) {
        latest = truncate;
      }
    }
    return latest;
  }

  private static int compare(List<Long> a, List<Long> b) {
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      int c = Long.compare(a.get(i), b.get(i));
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(a.size(), b.size());
  }
}
