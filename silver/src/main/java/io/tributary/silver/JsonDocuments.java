package io.tributary.silver;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import java.io.IOException;

/**
 * Reads a Kafka value as exactly one strict JSON document. Spark's {@code from_json} reads the first document of a
 * value and ignores what follows it, and accepts single quotes: a value holding two documents would be applied as
 * one and the second lost without a trace. Every token is read, so that such a value goes to quarantine instead,
 * and the decoders take what they need from the document in the same pass ({@link JsonEnvelopeReader}).
 */
final class JsonDocuments {
  /**
   * Jackson's defaults are strict JSON: no single quotes, comments, unquoted names, NaN or leading zeros. Buffers
   * are recycled through a shared pool: the default per-thread pool costs a soft-reference lookup per parser, which
   * showed in profiles of small records.
   */
  static final JsonFactory STRICT = JsonFactory.builder()
      .recyclerPool(JsonRecyclerPools.newConcurrentDequePool()).build();

  /** Reads the root value of a document; the parser is on the root's first token and must end on its last. */
  interface RootReader {
    /** Null when the root is what the reader expects, else why it is not. */
    String read(JsonParser parser) throws IOException;
  }

  private JsonDocuments() {}

  /** Null when {@code value} is one JSON document (surrounding whitespace allowed), else why it is not. */
  static String problem(byte[] value) {
    return read(value, parser -> {
      parser.skipChildren();
      return null;
    });
  }

  /**
   * Reads {@code value} as one strict JSON document, its root through {@code root}: null when both are fine, else
   * the first problem (one of the document's own before any of its root's).
   */
  static String read(byte[] value, RootReader root) {
    if (value == null) {
      return null;
    }
    boolean firstDocumentRead = false;
    try (JsonParser parser = STRICT.createParser(value)) {
      if (parser.nextToken() == null) {
        return "value is empty";
      }
      String rootProblem = root.read(parser);
      firstDocumentRead = true;
      JsonToken next = parser.nextToken();
      if (next == null) {
        return rootProblem;
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
