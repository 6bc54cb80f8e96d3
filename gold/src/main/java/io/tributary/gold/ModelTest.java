package io.tributary.gold;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * A check declared next to a model, run on the model's result before it is committed.
 *
 * @param kind not_null, unique, accepted_values, relationship or assert
 * @param arguments the column first (not_null and unique: the columns); for accepted_values the values, for relationship the
 *     referenced {@code model.column} or {@code namespace.table.column}, for assert the SQL condition every row
 *     must meet
 */
public record ModelTest(String kind, List<String> arguments) {
  static final List<String> KINDS = List.of("not_null", "unique", "accepted_values", "relationship", "assert");

  /** As written in the header, e.g. {@code unique(customer_id)}. */
  public String describe() {
    return kind + "(" + String.join(", ", arguments) + ")";
  }

  /** For relationship: the referenced table, a model name or {@code namespace.table}. */
  String relationshipTable() {
    String target = arguments.get(1);
    return target.substring(0, target.lastIndexOf('.'));
  }

  /**
   * For checks of single rows (not_null, accepted_values, assert): the condition a breaking row meets, so that all
   * of them are counted in one pass over the result. Empty for checks across rows (unique, relationship).
   */
  Optional<String> rowViolation() {
    String column = arguments.get(0);
    return switch (kind) {
      case "not_null" -> Optional.of(String.join(" OR ", arguments.stream().map(each -> each + " IS NULL").toList()));
      case "accepted_values" -> Optional.of(column + " IS NOT NULL AND " + column + " NOT IN ("
          + String.join(", ", arguments.subList(1, arguments.size())) + ")");
      case "assert" -> Optional.of("(" + column + ") IS NOT TRUE");
      default -> Optional.empty();
    };
  }

  /**
   * The query that selects the rows breaking this check (empty when it passes).
   *
   * @param result the view of the model's result
   * @param tables the SQL name of a referenced table, as for {@link GoldModel#render}
   */
  String offendingRows(String result, Function<String, String> tables) {
    Optional<String> violation = rowViolation();
    if (violation.isPresent()) {
      return "SELECT * FROM " + result + " WHERE " + violation.get();
    }
    String column = arguments.get(0);
    if (kind.equals("unique")) {
      return "SELECT " + String.join(", ", arguments) + ", count(*) AS occurrences FROM " + result + " GROUP BY "
          + String.join(", ", arguments) + " HAVING count(*) > 1";
    }
    String table = relationshipTable();
    String target = tables.apply(table.contains(".") ? table : "ref:" + table);
    String targetColumn = arguments.get(1).substring(table.length() + 1);
    return "SELECT r.* FROM " + result + " r LEFT ANTI JOIN " + target + " t ON r." + column + " = t." + targetColumn
        + " WHERE r." + column + " IS NOT NULL";
  }
}
