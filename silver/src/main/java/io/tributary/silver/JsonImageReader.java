package io.tributary.silver;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Reads an image (a JSON object) in one pass: the text of each of the entity's columns, as {@code from_json} into a
 * map of strings gives it ({@link JsonTokenText#of}) except that a number for a decimal column keeps its exact text
 * (through a double, {@code 12345678901234567.89} would lose its last digits), and the names of the fields the
 * entity does not know. A
 * map lookup per column was the larger part of decoding a wide record: Spark looks a key up in a map by comparing
 * it with each key in turn.
 *
 * <p>Output: null when the image is not a JSON object; else a struct of {@code fields} (the text of column
 * {@code i} of the entity in field {@code c<i>}: positions, not names, so that columns whose names differ only in
 * case stay apart), {@code typed} (the value of a plain token, {@link #typedField}), {@code numeric} (for each
 * decimal column, whether its token is a JSON number, {@link #numericField}) and {@code unknown} (the other field
 * names, in the order of the image, each once).
 */
final class JsonImageReader implements UDF1<byte[], Row> {
  private static final long serialVersionUID = 1L;

  private final Map<String, Integer> positions = new HashMap<>();
  private final Set<String> known = new HashSet<>();
  private final int columns;
  /** Per column, its reader of plain tokens ({@link TypedValues}), or null. */
  private final TypedValues[] typed;
  /** Per column, its place in {@code typed}, or -1. */
  private final int[] typedPlace;
  private final int typedCount;
  /** Per column, its place in {@code numeric} (decimal columns), or -1. */
  private final int[] numericPlace;
  private final int numericCount;
  /** This copy's parsers ({@link JsonDocuments#strict}), created on the first record. */
  private transient JsonFactory factory;

  /**
   * @param schema the entity's columns
   * @param alsoKnown further names that are not unknown (Tributary's own columns)
   */
  private JsonImageReader(StructType schema, Set<String> alsoKnown) {
    StructField[] fields = schema.fields();
    this.columns = fields.length;
    this.typed = new TypedValues[columns];
    this.typedPlace = new int[columns];
    this.numericPlace = new int[columns];
    int count = 0;
    int decimals = 0;
    for (int i = 0; i < columns; i++) {
      positions.putIfAbsent(fields[i].name(), i);
      known.add(fields[i].name());
      typed[i] = TypedValues.of(fields[i].dataType()).orElse(null);
      typedPlace[i] = typed[i] == null ? -1 : count++;
      numericPlace[i] = fields[i].dataType() instanceof DecimalType ? decimals++ : -1;
    }
    known.addAll(alsoKnown);
    this.typedCount = count;
    this.numericCount = decimals;
  }

  /** The reader of {@code image} (JSON text) for the entity's columns in {@code schema}. */
  static Column read(Column image, StructType schema, Set<String> alsoKnown) {
    StructType fields = new StructType();
    StructType typed = new StructType();
    StructType numeric = new StructType();
    for (int i = 0; i < schema.fields().length; i++) {
      fields = fields.add(field(i), DataTypes.StringType);
      if (TypedValues.of(schema.fields()[i].dataType()).isPresent()) {
        typed = typed.add(typedField(i), schema.fields()[i].dataType());
      }
      if (schema.fields()[i].dataType() instanceof DecimalType) {
        numeric = numeric.add(numericField(i), DataTypes.BooleanType);
      }
    }
    StructType output = new StructType().add("fields", fields).add("typed", typed).add("numeric", numeric)
        .add("unknown", DataTypes.createArrayType(DataTypes.StringType, false));
    return functions.udf(new JsonImageReader(schema, alsoKnown), output).apply(image.cast(DataTypes.BinaryType));
  }

  /** The name in {@code fields} of the text of the entity's column at {@code position}. */
  static String field(int position) {
    return "c" + position;
  }

  /**
   * The name in {@code typed} of the value of the entity's column at {@code position}, if its type has a reader
   * ({@link TypedValues#of}): null where the token is not plain, for the SQL conversion of the text to take over.
   */
  static String typedField(int position) {
    return "t" + position;
  }

  /**
   * The name in {@code numeric} of whether the token of the decimal column at {@code position} is a JSON number
   * (true), or not (false; null without a token): the JSON converter writes a Connect decimal as base64 text, or as
   * a number under {@code decimal.format = NUMERIC}, and digits alone are valid base64.
   */
  static String numericField(int position) {
    return "n" + position;
  }

  @Override
  public Row call(byte[] image) {
    if (image == null) {
      return null;
    }
    Object[] values = new Object[columns];
    Object[] typedValues = new Object[typedCount];
    Object[] numeric = new Object[numericCount];
    Set<String> unknown = new LinkedHashSet<>();
    if (factory == null) {
      factory = JsonDocuments.strict();
    }
    try (JsonParser parser = factory.createParser(image)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String name = parser.currentName();
        parser.nextToken();
        Integer position = positions.get(name);
        if (position != null) {
          if (typed[position] != null) {
            typedValues[typedPlace[position]] = typed[position].read(parser);
          }
          if (numericPlace[position] >= 0) {
            boolean number = parser.currentToken().isNumeric();
            numeric[numericPlace[position]] = number;
            values[position] = number ? parser.getText() : JsonTokenText.of(parser);
          } else {
            values[position] = JsonTokenText.of(parser);
          }
        } else {
          parser.skipChildren();
        }
        if (!known.contains(name)) {
          unknown.add(name);
        }
      }
    } catch (IOException e) {
      return null;
    }
    return RowFactory.create(RowFactory.create(values), RowFactory.create(typedValues), RowFactory.create(numeric),
        unknown.toArray(new String[0]));
  }
}
