package io.tributary.silver;

/**
 * A column of a change stream's schema that no Spark column can hold (a decimal of more than 38 digits, say). The
 * run stops before its batch writes anything; the message names the table and field and what to change, which the
 * command line prints as its one line.
 */
public final class UnmappableTypeException extends RuntimeException {
  UnmappableTypeException(String message) {
    super(message);
  }
}
