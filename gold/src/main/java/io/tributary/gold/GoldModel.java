package io.tributary.gold;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One gold model: a {@code .sql} file whose name is the table's name. A header of {@code --} comments declares how it
 * is materialized and how it is tested; the body is one SELECT that names its inputs as {@code {{ ref('model') }}}
 * (another gold model) and {@code {{ source('silver.orders') }}} (a silver table), and may use the run's interval
 * as {@code {{ start }}} and {@code {{ end }}} (dates, end exclusive):
 *
 * <pre>
 * -- materialized: incremental
 * -- partition-by: order_date
 * -- test: not_null(order_date)
 * -- test: accepted_values(currency, 'EUR', 'USD', 'GBP')
 * SELECT ... FROM {{ source('silver.orders') }} WHERE event_time &gt;= {{ start }} AND event_time &lt; {{ end }}
 * </pre>
 *
 * @param name the model and table name
 * @param materialization how the result becomes the table
 * @param partitionBy for incremental: the date column whose partitions a run overwrites
 * @param uniqueKey for merge: the key columns
 * @param tests the checks run before commit
 * @param sql the body, with its references still as written
 * @param models the gold models it reads (in its SQL or in a relationship test)
 * @param sources the silver (or other) tables it reads, as {@code namespace.table}
 * @param version the SHA-256 of the whole file, recorded with every commit so that a run can be traced to its SQL
 */
public record GoldModel(String name, Materialization materialization, Optional<String> partitionBy,
    List<String> uniqueKey, List<ModelTest> tests, String sql, Set<String> models, Set<String> sources,
    String version) {

  private static final Pattern HEADER = Pattern.compile("^--\\s*([a-z-]+)\\s*:\\s*(.*?)\\s*$");
  private static final Pattern REFERENCE = Pattern.compile(
      "\\{\\{\\s*(ref|source)\\s*\\(\\s*'([^']+)'\\s*\\)\\s*}}");
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{(.*?)}}");
  private static final Pattern INTERVAL = Pattern.compile("\\{\\{\\s*(start|end)\\s*}}");
  private static final Pattern SOURCE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*\\.[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern TEST = Pattern.compile("^([a-z_]+)\\s*\\((.*)\\)$");
  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]*");

  /** Parses one model file's text; problems are added to {@code problems}, each naming the model and line. */
  static GoldModel parse(String name, String text, List<String> problems) {
    String where = "model " + name;
    if (!NAME.matcher(name).matches()) {
      problems.add(where + ": the file name must be a table name (lower case letters, digits, _)");
    }
    Materialization materialization = Materialization.TABLE;
    Optional<String> partitionBy = Optional.empty();
    List<String> uniqueKey = List.of();
    List<ModelTest> tests = new ArrayList<>();
    List<String> lines = text.lines().toList();
    int body = 0;
    for (; body < lines.size(); body++) {
      String line = lines.get(body).trim();
      if (line.isEmpty()) {
        continue;
      }
      if (!line.startsWith("--")) {
        break;
      }
      Matcher header = HEADER.matcher(line);
      if (!header.matches()) {
        continue; // an ordinary comment
      }
      String at = where + " line " + (body + 1) + ": ";
      String value = header.group(2);
      switch (header.group(1)) {
        case "materialized" -> {
          try {
            materialization = Materialization.valueOf(value.toUpperCase(Locale.ROOT));
          } catch (IllegalArgumentException e) {
            problems.add(at + "materialized must be table, incremental or merge; got '" + value + "'");
          }
        }
        case "partition-by" -> partitionBy = Optional.of(value);
        case "unique-key" -> uniqueKey = List.of(value.split("\\s*,\\s*"));
        case "test" -> {
          ModelTest test = test(value, at, problems);
          if (test != null) {
            tests.add(test);
          }
        }
        default -> problems.add(at + "unknown header '" + header.group(1)
            + "' (known: materialized, partition-by, unique-key, test)");
      }
    }
    String sql = String.join("\n", lines.subList(body, lines.size())).trim();
    if (sql.isEmpty()) {
      problems.add(where + ": has no SELECT after its header");
    }
    if (materialization == Materialization.INCREMENTAL && partitionBy.isEmpty()) {
      problems.add(where + ": materialized incremental needs '-- partition-by: <date column>'");
    }
    if (materialization == Materialization.MERGE && uniqueKey.isEmpty()) {
      problems.add(where + ": materialized merge needs '-- unique-key: <column>[, <column>...]'");
    }
    Set<String> models = new LinkedHashSet<>();
    Set<String> sources = new LinkedHashSet<>();
    Matcher placeholder = PLACEHOLDER.matcher(sql);
    while (placeholder.find()) {
      String written = placeholder.group();
      Matcher reference = REFERENCE.matcher(written);
      if (reference.matches()) {
        reference(reference.group(1), reference.group(2), models, sources, where, problems);
      } else if (!INTERVAL.matcher(written).matches()) {
        problems.add(where + ": unknown placeholder '" + written + "' (known: {{ ref('model') }},"
            + " {{ source('namespace.table') }}, {{ start }}, {{ end }})");
      }
    }
    for (ModelTest test : tests) {
      if (test.kind().equals("relationship")) {
        String target = test.relationshipTable();
        reference(target.contains(".") ? "source" : "ref", target, models, sources, where, problems);
      }
    }
    return new GoldModel(name, materialization, partitionBy, uniqueKey, List.copyOf(tests), sql, Set.copyOf(models),
        Set.copyOf(sources), sha256(text));
  }

  private static void reference(String kind, String target, Set<String> models, Set<String> sources, String where,
      List<String> problems) {
    if (kind.equals("ref")) {
      models.add(target);
    } else if (SOURCE_NAME.matcher(target).matches()) {
      sources.add(target);
    } else {
      problems.add(where + ": source '" + target + "' must be written as 'namespace.table'");
    }
  }

  /**
   * The SQL to run: references replaced by {@code tables} (a ref as {@code ref:name}, a source as its
   * {@code namespace.table}), the interval by date literals.
   */
  String render(Interval interval, Function<String, String> tables) {
    String withTables = REFERENCE.matcher(sql).replaceAll(reference -> Matcher.quoteReplacement(tables.apply(
        reference.group(1).equals("ref") ? "ref:" + reference.group(2) : reference.group(2))));
    return INTERVAL.matcher(withTables).replaceAll(bound -> bound.group(1).equals("start")
        ? interval.startLiteral() : interval.endLiteral());
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  private static ModelTest test(String text, String at, List<String> problems) {
    Matcher matcher = TEST.matcher(text);
    if (!matcher.matches() || !ModelTest.KINDS.contains(matcher.group(1))) {
      problems.add(at + "test must be one of " + String.join(", ", ModelTest.KINDS.stream().map(k -> k + "(...)")
          .toList()) + "; got '" + text + "'");
      return null;
    }
    String kind = matcher.group(1);
    List<String> arguments = kind.equals("assert") ? List.of(matcher.group(2).trim())
        : List.of(matcher.group(2).trim().split("\\s*,\\s*"));
    int needed = switch (kind) {
      case "accepted_values", "relationship" -> 2;
      default -> 1;
    };
    if (arguments.size() < needed || arguments.get(0).isEmpty()) {
      problems.add(at + kind + " needs " + (needed == 1 ? "a column" : "a column and "
          + (kind.equals("relationship") ? "the referenced table.column" : "the accepted values")));
      return null;
    }
    if (kind.equals("relationship") && (arguments.size() != 2 || !arguments.get(1).contains("."))) {
      problems.add(at + "relationship needs a column and the referenced table.column (model.column or"
          + " namespace.table.column); got '" + text + "'");
      return null;
    }
    return new ModelTest(kind, arguments);
  }
}
