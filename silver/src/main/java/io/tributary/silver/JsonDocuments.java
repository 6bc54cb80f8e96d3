package io.tributary.silver;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import java.io.IOException;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Reads a Kafka value as exactly one strict JSON document. Spark's {@code from_json} reads the first document of a
 * value and ignores what follows it, and accepts single quotes: a value holding two documents would be applied as
 * one and the second lost without a trace. Every token is read, so that such a value goes to quarantine instead,
 * and the decoders take what they need from the document in the same pass ({@link JsonEnvelopeReader}).
 */
final class JsonDocuments {
  /** A strict factory for the rarer paths (nested values, tests); the readers keep their own ({@link #strict}). */
  static final JsonFactory STRICT = strict();

  /** Reads the root value of a document; the parser is on the root's first token and must end on its last. */
  interface RootReader {
    /** Null when the root is what the reader expects, else why it is not. */
    String read(JsonParser parser) throws IOException;
  }

  private JsonDocuments() {}

  /**
   * A new strict factory. Jackson's defaults are strict JSON: no single quotes, comments, unquoted names, NaN or
   * leading zeros. Buffers are recycled through a pool of the factory's own: the default per-thread pool costs a
   * soft-reference lookup per parser, and one pool shared by the tasks of an executor was 9% of a decode's time in
   * its queue, the tasks taking turns at its head. A reader creates its factory on its first record: Spark gives
   * each task its own copy of a function, so each pool is used by one thread.
   */
  static JsonFactory strict() {
    return JsonFactory.builder().recyclerPool(JsonRecyclerPools.newConcurrentDequePool()).build();
  }

  /**
   * Whether {@code value} is valid UTF-8, as Spark's {@code is_valid_utf8} says: text that is all ASCII (most JSON)
   * is found so in one pass the JIT turns into vector instructions; other text goes to Spark's check.
   */
  static boolean isValidUtf8(byte[] value) {
    int bits = 0;
    for (byte b : value) {
      bits |= b;
    }
    return bits >= 0 || UTF8String.fromBytes(value).isValid();
  }

  /** Null when {@code value} is one JSON document (surrounding whitespace allowed), else why it is not. */
  static String problem(byte[] value) {
    return read(STRICT, value, parser -> {
      parser.skipChildren();
      return null;
    });
  }

  /**
   * Reads {@code value} as one strict JSON document, its root through {@code root}: null when both are fine, else
   * the first problem (one of the document's own before any of its root's).
   */
  static String read(JsonFactory factory, byte[] value, RootReader root) {
    if (value == null) {
      return null;
    }
    boolean firstDocumentRead = false;
    try (JsonParser parser = factory.createParser(value)) {
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
