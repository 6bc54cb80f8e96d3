package io.tributary.silver;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Reads the fields a decoder needs from a JSON value in one pass, checking on the way that the value is exactly
 * one strict JSON document ({@link JsonDocuments}). It replaces a strict-document check, a {@code from_json} of the
 * envelope and, for the schema converter's wrapper, a {@code from_json} of its payload: per record, creating
 * parsers cost more than reading the bytes.
 *
 * <p>The fields are a {@link JsonFields#schemaOf} struct: strings at the leaves, which hold the value's text as
 * {@code from_json} gives it ({@link JsonTokenText#of}), except that an object or array is its bytes as the
 * document has them. A field that should be an object but is another value makes the value not valid JSON, as it
 * does for {@code from_json}.
 *
 * <p>Output, a struct: {@code problem} (null, or why the value is not valid UTF-8 or not a document of the expected
 * kind: its quarantine reason), {@code fields} and {@code schema} (the wrapper's schema block as text, when kept).
 */
final class JsonEnvelopeReader implements UDF1<byte[], Row> {
  private static final long serialVersionUID = 1L;

  /** What the value is expected to be. */
  enum Kind {
    /** An application's event: the fields are read from the root object. */
    EVENT("value is not a JSON object"),
    /** A Debezium envelope, inside the schema converter's {@code {schema, payload}} wrapper or not. */
    DEBEZIUM("value is not valid JSON"),
    /** As {@link #DEBEZIUM}, keeping the wrapper's schema block. */
    DEBEZIUM_WITH_SCHEMA("value is not valid JSON");

    final String notAnObject;

    Kind(String notAnObject) {
      this.notAnObject = notAnObject;
    }
  }

  /** One level of the fields: names to positions, and the struct below each position that is one. */
  private static final class Node implements Serializable {
    private static final long serialVersionUID = 1L;
    final Map<String, Integer> positions = new HashMap<>();
    final Node[] children;

    Node(StructType struct) {
      children = new Node[struct.fields().length];
      for (int i = 0; i < struct.fields().length; i++) {
        StructField field = struct.fields()[i];
        positions.put(field.name(), i);
        if (field.dataType() instanceof StructType nested) {
          children[i] = new Node(nested);
        }
      }
    }
  }

  private final Node root;
  private final Kind kind;
  /** This copy's parsers ({@link JsonDocuments#strict}), created on the first record. */
  private transient JsonFactory factory;

  /** @param fields the struct of the fields to read ({@link JsonFields#schemaOf}) */
  JsonEnvelopeReader(StructType fields, Kind kind) {
    this.root = new Node(fields);
    this.kind = kind;
  }

  /** The reader applied to {@code document} (BINARY, UTF-8 JSON). */
  static Column read(Column document, StructType fields, Kind kind) {
    StructType output = new StructType()
        .add("problem", DataTypes.StringType)
        .add("fields", fields)
        .add("schema", DataTypes.StringType);
    return functions.udf(new JsonEnvelopeReader(fields, kind), output).apply(document);
  }

  @Override
  public Row call(byte[] document) {
    if (document == null) {
      return null;
    }
    if (!JsonDocuments.isValidUtf8(document)) {
      return RowFactory.create("value is not valid UTF-8", null, null);
    }
    if (factory == null) {
      factory = JsonDocuments.strict();
    }
    Reading reading = new Reading(document);
    String problem = JsonDocuments.read(factory, document, parser -> {
      if (parser.currentToken() != JsonToken.START_OBJECT) {
        parser.skipChildren();
        return kind.notAnObject;
      }
      reading.result = kind == Kind.EVENT ? reading.object(parser, root) : reading.debezium(parser);
      return reading.mismatch ? "value is not valid JSON" : null;
    });
    return problem != null ? RowFactory.create(problem, null, null)
        : RowFactory.create(null, reading.result, reading.schema);
  }

  /** The state of reading one document. */
  private final class Reading {
    private byte[] document;
    private Row result;
    private String schema;
    /** Whether a field that should hold an object holds another value. */
    private boolean mismatch;

    Reading(byte[] document) {
      this.document = document;
    }

    /** The envelope's fields, from the wrapper's payload when there is one. */
    Row debezium(JsonParser parser) throws IOException {
      Object[] top = new Object[root.children.length];
      Row payload = null;
      String wrapperSchema = null;
      boolean wrapped = false;
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String name = parser.currentName();
        JsonToken value = parser.nextToken();
        if (name.equals("payload") && value != JsonToken.VALUE_NULL) {
          wrapped = true;
          payload = value == JsonToken.START_OBJECT ? object(parser, root) : payloadText(parser);
        } else if (name.equals("schema") && kind == Kind.DEBEZIUM_WITH_SCHEMA) {
          wrapperSchema = JsonTokenText.raw(parser, document);
        } else {
          field(parser, root, name, top);
        }
      }
      schema = wrapped ? wrapperSchema : null;
      return wrapped ? payload : RowFactory.create(top);
    }

    /**
     * A payload written as a string holding the envelope's JSON: its fields, or none when that text is not an
     * envelope (the value then misses its op).
     */
    private Row payloadText(JsonParser parser) throws IOException {
      byte[] outer = document;
      document = JsonTokenText.of(parser).getBytes(StandardCharsets.UTF_8);
      try (JsonParser nested = factory.createParser(document)) {
        if (nested.nextToken() == JsonToken.START_OBJECT) {
          return object(nested, root);
        }
      } catch (IOException e) {
        // not an envelope: no fields
      } finally {
        document = outer;
      }
      return RowFactory.create(new Object[root.children.length]);
    }

    /** The fields of {@code node} in the object the parser is on (START_OBJECT), which it leaves on its end. */
    Row object(JsonParser parser, Node node) throws IOException {
      Object[] values = new Object[node.children.length];
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String name = parser.currentName();
        parser.nextToken();
        field(parser, node, name, values);
      }
      return RowFactory.create(values);
    }

    private void field(JsonParser parser, Node node, String name, Object[] values) throws IOException {
      Integer position = node.positions.get(name);
      if (position == null) {
        parser.skipChildren();
        return;
      }
      Node child = node.children[position];
      JsonToken token = parser.currentToken();
      if (child == null) {
        values[position] = JsonTokenText.raw(parser, document);
      } else if (token == JsonToken.START_OBJECT) {
        values[position] = object(parser, child);
      } else if (token != JsonToken.VALUE_NULL) {
        mismatch = true;
        parser.skipChildren();
      }
    }
  }
}
