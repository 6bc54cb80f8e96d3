package io.tributary.gold;

import java.util.List;

/**
 * A check declared next to a model, run on the model's result before it is committed.
 *
 * @param kind not_null, unique, accepted_values, relationship or assert
 * @param arguments the column first; for accepted_values the values, for relationship the referenced
 *     {@code table.column}, for assert the SQL condition every row must meet
 */
public record ModelTest(String kind, List<String> arguments) {
  static final List<String> KINDS = List.of("not_null", "unique", "accepted_values", "relationship", "assert");

  /** As written in the header, e.g. {@code unique(customer_id)}. */
  public String describe() {
    return kind + "(" + String.join(", ", arguments) + ")";
  }
}
