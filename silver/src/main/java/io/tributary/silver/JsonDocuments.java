package io.tributary.silver;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;

/**
 * Whether a Kafka value is exactly one strict JSON document. Spark's {@code from_json} reads the first document of a
 * value and ignores what follows it, and accepts single quotes: a value holding two documents would be applied as
 * one and the second lost without a trace. This check reads every token (without building anything), so that such
 * a value goes to quarantine instead.
 */
final class JsonDocuments {
  /** The SQL function the decoders call: null for one strict document, else the reason. */
  static final String FUNCTION = "tributary_json_problem";

  // Jackson's defaults are strict JSON: no single quotes, comments, unquoted names, NaN or leading zeros.
  private static final JsonFactory STRICT = JsonFactory.builder().build();

  private JsonDocuments() {}

  /**
   * Registers the function unless the session has it: a stream's session is a clone that inherits it, and
   * registering it again makes Spark log a warning per stream start that a user cannot act on.
   */
  static synchronized void register(SparkSession spark) {
    if (!spark.catalog().functionExists(FUNCTION)) {
      spark.udf().register(FUNCTION, (UDF1<byte[], String>) JsonDocuments::problem, DataTypes.StringType);
    }
  }

  /** Null when {@code value} is one JSON document (surrounding whitespace allowed), else why it is not. */
  static String problem(byte[] value) {
    if (value == null) {
      return null;
    }
    boolean firstDocumentRead = false;
    try (JsonParser parser = STRICT.createParser(value)) {
      if (parser.nextToken() == null) {
        return "value is empty";
      }
      parser.skipChildren();
      firstDocumentRead = true;
      JsonToken next = parser.nextToken();
      if (next == null) {
        return null;
      }
      return next == JsonToken.START_OBJECT || next == JsonToken.START_ARRAY
          ? "value holds more than one JSON document" : "value has text after its JSON document";
    } catch (JsonProcessingException e) {
      return firstDocumentRead ? "value has text after its JSON document" : "value is not valid JSON";
    } catch (IOException e) {
      return "value is not valid JSON";
    }
  }
}
