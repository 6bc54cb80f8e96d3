package io.tributary.silver;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The text of a JSON value as Spark's {@code from_json} gives it for a string field, so that reading a field here
 * and reading it with {@code from_json} give the same text: a string as its content, a whole number as its digits,
 * any other number through a double ({@code 1.50} is {@code 1.5}, {@code 1e2} is {@code 100.0}), an object or array
 * as compact JSON.
 */
final class JsonTokenText {
  private JsonTokenText() {}

  /** The value the parser is on, which it leaves on the value's last token. */
  static String of(JsonParser parser) throws IOException {
    switch (parser.currentToken()) {
      case VALUE_NULL:
        return null;
      case VALUE_STRING:
        return parser.getText();
      case VALUE_NUMBER_INT:
        return parser.getNumberValue().toString();
      case VALUE_NUMBER_FLOAT: {
        double value = parser.getDoubleValue();
        // Jackson's generator quotes a double beyond its range, and from_json's text keeps the quotes.
        return Double.isInfinite(value) ? "\"" + value + "\"" : Double.toString(value);
      }
      case VALUE_TRUE:
        return "true";
      case VALUE_FALSE:
        return "false";
      default:
        return compact(parser);
    }
  }

  /**
   * The value the parser is on as the document has it: strings and numbers as {@link #of}, an object or array as its
   * bytes in {@code document} (no copy through a generator). Only for a document read from those bytes.
   */
  static String raw(JsonParser parser, byte[] document) throws IOException {
    if (!parser.currentToken().isStructStart()) {
      return of(parser);
    }
    int start = (int) parser.currentTokenLocation().getByteOffset();
    parser.skipChildren();
    int end = (int) parser.currentTokenLocation().getByteOffset() + 1;
    return new String(document, start, end - start, StandardCharsets.UTF_8);
  }

  private static String compact(JsonParser parser) throws IOException {
    try (ByteArrayBuilder bytes = new ByteArrayBuilder();
        JsonGenerator generator = JsonDocuments.STRICT.createGenerator(bytes, JsonEncoding.UTF8)) {
      generator.copyCurrentStructure(parser);
      generator.flush();
      return new String(bytes.toByteArray(), StandardCharsets.UTF_8);
    }
  }
}
