package io.tributary.silver;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.Serializable;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.util.regex.Pattern;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;

/**
 * A column's value read straight from the JSON token, for the tokens whose value is plain (a whole number for an
 * integer, date or epoch timestamp column, a number or plain decimal text for a decimal column, a boolean), giving
 * exactly what {@link EntityRows}'s SQL conversion of the token's text gives. Any other token is left to that SQL
 * (null here): the SQL then runs only for the records that need it, instead of a chain of text casts per column
 * per record, which was the larger part of decoding.
 */
abstract class TypedValues implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final Pattern PLAIN_DECIMAL = Pattern.compile("-?[0-9]{1,38}(\\.[0-9]{1,38})?");

  /** The value of the token the parser is on, or null to leave it to the SQL conversion. */
  abstract Object read(JsonParser parser) throws IOException;

  /** The reader for a column of {@code type}, if the type has one. */
  static java.util.Optional<TypedValues> of(DataType type) {
    if (type.equals(DataTypes.LongType)) {
      return java.util.Optional.of(new Longs());
    }
    if (type.equals(DataTypes.IntegerType)) {
      return java.util.Optional.of(new Ints());
    }
    if (type.equals(DataTypes.BooleanType)) {
      return java.util.Optional.of(new Booleans());
    }
    if (type.equals(DataTypes.TimestampType)) {
      return java.util.Optional.of(new EpochTimestamps());
    }
    if (type.equals(DataTypes.DateType)) {
      return java.util.Optional.of(new EpochDays());
    }
    if (type instanceof DecimalType decimal) {
      return java.util.Optional.of(new Decimals(decimal.precision(), decimal.scale()));
    }
    return java.util.Optional.empty();
  }

  private static boolean isLong(JsonParser parser) throws IOException {
    return parser.currentToken() == JsonToken.VALUE_NUMBER_INT
        && parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER;
  }

  private static final class Longs extends TypedValues {
    private static final long serialVersionUID = 1L;

    @Override
    Object read(JsonParser parser) throws IOException {
      return isLong(parser) ? parser.getLongValue() : null;
    }
  }

  private static final class Ints extends TypedValues {
    private static final long serialVersionUID = 1L;

    @Override
    Object read(JsonParser parser) throws IOException {
      return parser.currentToken() == JsonToken.VALUE_NUMBER_INT && parser.getNumberType() == JsonParser.NumberType.INT
          ? parser.getIntValue() : null;
    }
  }

  private static final class Booleans extends TypedValues {
    private static final long serialVersionUID = 1L;

    @Override
    Object read(JsonParser parser) {
      JsonToken token = parser.currentToken();
      return token == JsonToken.VALUE_TRUE ? Boolean.TRUE : token == JsonToken.VALUE_FALSE ? Boolean.FALSE : null;
    }
  }

  /** Epoch numbers told apart by size as the SQL does: microseconds, milliseconds or seconds. */
  private static final class EpochTimestamps extends TypedValues {
    private static final long serialVersionUID = 1L;

    @Override
    Object read(JsonParser parser) throws IOException {
      if (!isLong(parser)) {
        return null;
      }
      long number = parser.getLongValue();
      if (number == Long.MIN_VALUE) {
        return null;
      }
      long size = Math.abs(number);
      long micros = size >= 100_000_000_000_000L ? number : size >= 100_000_000_000L ? number * 1000
          : number * 1_000_000;
      return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000), Math.floorMod(micros, 1_000_000) * 1000);
    }
  }

  /** Days since the epoch (Debezium's Date). */
  private static final class EpochDays extends TypedValues {
    private static final long serialVersionUID = 1L;

    @Override
    Object read(JsonParser parser) throws IOException {
      return parser.currentToken() == JsonToken.VALUE_NUMBER_INT && parser.getNumberType() == JsonParser.NumberType.INT
          ? LocalDate.ofEpochDay(parser.getIntValue()) : null;
    }
  }

  /**
   * A number, or text of plain digits, rounded half up to the scale; null (left to the SQL, which gives null too)
   * when it does not fit the precision.
   */
  private static final class Decimals extends TypedValues {
    private static final long serialVersionUID = 1L;
    private final int precision;
    private final int scale;

    Decimals(int precision, int scale) {
      this.precision = precision;
      this.scale = scale;
    }

    @Override
    Object read(JsonParser parser) throws IOException {
      JsonToken token = parser.currentToken();
      String text;
      if (token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT) {
        text = parser.getText(); // exact, as JsonImageReader gives a decimal column's number
      } else if (token == JsonToken.VALUE_STRING && PLAIN_DECIMAL.matcher(parser.getText()).matches()) {
        text = parser.getText();
      } else {
        return null;
      }
      BigDecimal value;
      try {
        value = new BigDecimal(text).setScale(scale, RoundingMode.HALF_UP);
      } catch (NumberFormatException e) {
        return null; // "Infinity"
      }
      return value.precision() - value.scale() <= precision - scale ? value : null;
    }
  }
}
