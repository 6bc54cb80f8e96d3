package io.tributary.silver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;

/**
 * Debezium's and Kafka Connect's semantic types as Spark (and so Iceberg) column types, and how a value's JSON text
 * (as the JSON converter writes it, or as {@link AvroJson} writes an Avro record) becomes one.
 *
 * <ul>
 *   <li>Times of day without a date are text ({@code HH:mm:ss.SSSSSS}): Iceberg's {@code time} has no Spark type.
 *   <li>Debezium's {@code Timestamp}, {@code MicroTimestamp} and {@code NanoTimestamp} are a wall-clock time without
 *       a zone ({@code TIMESTAMP_NTZ}); {@code ZonedTimestamp} and Connect's {@code Timestamp} (an instant) are
 *       {@code TIMESTAMP}.
 *   <li>{@code VariableScaleDecimal} (a numeric column declared without precision) is {@code DECIMAL(38, 18)}; a value
 *       that does not fit it exactly goes to quarantine rather than being rounded.
 *   <li>Types a Spark column cannot hold fail the batch, naming the field: a decimal of more than 38 digits, a map
 *       whose keys are not text, a temporal or decimal type inside a struct, array or map.
 * </ul>
 */
final class SemanticTypes {
  /** A column type and, when the stream's encoding needs it, the SQL that turns the field's value into it. */
  record Mapped(DataType type, Optional<Function<FieldSql, String>> conversion) {
    static Mapped converted(DataType type, UnaryOperator<String> conversionOfText) {
      return new Mapped(type, Optional.of(field -> conversionOfText.apply(field.text())));
    }
  }

  /**
   * The SQL of a field's value in the image: {@code text}, its JSON text ({@link JsonImageReader}), and
   * {@code isNumber}, true where the token is a JSON number (only read for decimal columns).
   */
  record FieldSql(String text, String isNumber) {}

  static final String CONNECT_DECIMAL = "tributary_connect_decimal";
  static final String VARIABLE_DECIMAL = "tributary_variable_decimal";
  private static final int VARIABLE_SCALE = 18;
  private static final String EPOCH_NTZ = "TIMESTAMP_NTZ'1970-01-01 00:00:00'";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Semantic types whose values are their physical type as they are (text, numbers, bytes, structs). */
  private static final Set<String> AS_PHYSICAL = Set.of("io.debezium.time.Year", "io.debezium.time.MicroDuration",
      "io.debezium.time.Interval", "io.debezium.time.ZonedTime", "io.debezium.data.Json", "io.debezium.data.Uuid",
      "io.debezium.data.Enum", "io.debezium.data.EnumSet", "io.debezium.data.Xml", "io.debezium.data.Bits",
      "io.debezium.data.Ltree", "io.debezium.data.TsVector", "io.debezium.time.IsoTime",
      "io.debezium.time.NanoDuration", "io.debezium.data.geometry.Geometry", "io.debezium.data.geometry.Geography",
      "io.debezium.data.geometry.Point");

  private SemanticTypes() {}

  /**
   * The column of a top-level field.
   *
   * @param where the table and field, for the message of a type that cannot be mapped
   */
  static Mapped column(ConnectType type, String where) {
    String logical = type.avroLogical();
    switch (type.name()) {
      case "org.apache.kafka.connect.data.Decimal" -> {
        int scale = integer(type, "scale", where);
        int precision = type.parameters().containsKey("connect.decimal.precision")
            ? integer(type, "connect.decimal.precision", where) : 38;
        if (precision > 38) {
          throw new UnmappableTypeException(where + ": a decimal of precision " + precision + " (scale " + scale
              + "), and Spark holds at most 38 digits; give the source column a precision, have Debezium write it"
              + " as a string (decimal.handling.mode = string), or give the entity a schema");
        }
        DataType decimal = DataTypes.createDecimalType(precision, Math.min(scale, precision));
        if (logical.equals("decimal")) {
          return Mapped.converted(decimal, raw -> "try_cast(" + raw + " AS " + decimal.sql() + ")");
        }
        // The JSON converter writes base64 of the unscaled bytes, or a number under decimal.format = NUMERIC; digits
        // are valid base64, so the token's kind decides, never the text.
        return new Mapped(decimal, Optional.of(field -> "CASE WHEN " + field.isNumber() + " THEN try_cast("
            + field.text() + " AS " + decimal.sql() + ") ELSE try_cast(" + CONNECT_DECIMAL + "(" + field.text() + ", "
            + scale + ") AS " + decimal.sql() + ") END"));
      }
      case "io.debezium.data.VariableScaleDecimal" -> {
        DataType decimal = DataTypes.createDecimalType(38, VARIABLE_SCALE);
        return Mapped.converted(decimal, raw -> "try_cast(" + VARIABLE_DECIMAL + "(" + raw + ") AS "
            + decimal.sql() + ")");
      }
      case "io.debezium.time.Date", "org.apache.kafka.connect.data.Date" -> {
        return Mapped.converted(DataTypes.DateType, logical.equals("date")
            ? raw -> "try_cast(" + raw + " AS DATE)"
            : raw -> "date_add(DATE'1970-01-01', try_cast(" + raw + " AS INT))");
      }
      case "io.debezium.time.IsoDate" -> {
        return Mapped.converted(DataTypes.DateType, raw -> "try_cast(" + raw + " AS DATE)");
      }
      case "io.debezium.time.IsoTimestamp" -> {
        return Mapped.converted(DataTypes.TimestampNTZType, raw -> "try_cast(" + raw + " AS TIMESTAMP_NTZ)");
      }
      case "io.debezium.time.Timestamp" -> {
        return Mapped.converted(DataTypes.TimestampNTZType, raw -> "timestampadd(MILLISECOND, try_cast(" + raw
            + " AS BIGINT), " + EPOCH_NTZ + ")");
      }
      case "io.debezium.time.MicroTimestamp" -> {
        return Mapped.converted(DataTypes.TimestampNTZType, raw -> "timestampadd(MICROSECOND, try_cast(" + raw
            + " AS BIGINT), " + EPOCH_NTZ + ")");
      }
      case "io.debezium.time.NanoTimestamp" -> {
        return Mapped.converted(DataTypes.TimestampNTZType, raw -> "timestampadd(MICROSECOND, "
            + floorDiv(raw, 1000) + ", " + EPOCH_NTZ + ")");
      }
      case "org.apache.kafka.connect.data.Timestamp" -> {
        return Mapped.converted(DataTypes.TimestampType, logical.startsWith("timestamp")
            ? raw -> "try_cast(" + raw + " AS TIMESTAMP)"
            : raw -> "timestamp_millis(try_cast(" + raw + " AS BIGINT))");
      }
      case "io.debezium.time.ZonedTimestamp" -> {
        return Mapped.converted(DataTypes.TimestampType, raw -> "try_cast(" + raw + " AS TIMESTAMP)");
      }
      case "io.debezium.time.Time", "org.apache.kafka.connect.data.Time" -> {
        return Mapped.converted(DataTypes.StringType, raw -> timeOfDay(raw, "try_cast(" + raw
            + " AS BIGINT) * 1000"));
      }
      case "io.debezium.time.MicroTime" -> {
        return Mapped.converted(DataTypes.StringType, raw -> timeOfDay(raw, "try_cast(" + raw
            + " AS BIGINT)"));
      }
      case "io.debezium.time.NanoTime" -> {
        return Mapped.converted(DataTypes.StringType, raw -> timeOfDay(raw, floorDiv(raw, 1000)));
      }
      default -> {
        return new Mapped(physical(type, where, "top"), Optional.empty());
      }
    }
  }

  /** The type of a value kept as it is: plain types, and semantic types whose values are their physical type. */
  private static DataType physical(ConnectType type, String where, String level) {
    if (!type.name().isEmpty() && !AS_PHYSICAL.contains(type.name()) && !level.equals("top")
        && (type.name().startsWith("io.debezium.time.") || type.name().startsWith("org.apache.kafka.connect.data.")
            || type.name().equals("io.debezium.data.VariableScaleDecimal"))) {
      throw new UnmappableTypeException(where + ": " + type.name() + " inside a struct, array or map has no column"
          + " type of its own here; give the entity a schema");
    }
    return switch (type.type()) {
      case "int8", "int16", "int32" -> DataTypes.IntegerType;
      case "int64" -> DataTypes.LongType;
      case "float32", "float" -> DataTypes.FloatType;
      case "float64", "double" -> DataTypes.DoubleType;
      case "boolean" -> DataTypes.BooleanType;
      case "string" -> DataTypes.StringType;
      case "bytes" -> DataTypes.BinaryType;
      case "struct" -> {
        List<StructField> fields = new ArrayList<>();
        for (ConnectType.Field field : type.fields()) {
          fields.add(DataTypes.createStructField(field.name(), physical(field.type(), where + "." + field.name(),
              "nested"), true));
        }
        if (fields.isEmpty()) {
          throw new UnmappableTypeException(where + ": a struct without fields");
        }
        yield DataTypes.createStructType(fields);
      }
      case "array" -> DataTypes.createArrayType(physical(type.items(), where + "[]", "nested"), true);
      case "map" -> {
        if (!type.mapKeys().type().equals("string")) {
          throw new UnmappableTypeException(where + ": a map whose keys are " + type.mapKeys().type()
              + ", and a Spark map read from JSON has text keys; give the entity a schema");
        }
        yield DataTypes.createMapType(DataTypes.StringType, physical(type.items(), where + "{}", "nested"), true);
      }
      default -> throw new UnmappableTypeException(where + ": a " + (type.type().isEmpty() ? "schema without a type"
          : type.type()) + " has no column type; give the entity a schema");
    };
  }

  private static int integer(ConnectType type, String parameter, String where) {
    String value = type.parameters().get(parameter);
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new UnmappableTypeException(where + ": " + type.name() + " has no usable " + parameter + " parameter ("
          + value + ")");
    }
  }

  /** {@code raw} as a whole number divided by {@code by}, rounded down (also below zero). */
  private static String floorDiv(String raw, int by) {
    String number = "try_cast(" + raw + " AS BIGINT)";
    return "((" + number + " - pmod(" + number + ", " + by + ")) div " + by + ")";
  }

  /** The time of day of {@code micros} since midnight as {@code HH:mm:ss.SSSSSS}; PostgreSQL's 24:00 kept as is. */
  private static String timeOfDay(String raw, String micros) {
    return "CASE WHEN " + micros + " = 86400000000 THEN '24:00:00.000000'"
        + " WHEN " + micros + " IS NULL THEN " + raw
        + " ELSE date_format(timestampadd(MICROSECOND, " + micros + ", " + EPOCH_NTZ + "), 'HH:mm:ss.SSSSSS') END";
  }

  /** Registers the functions the conversions call in the batch's session. */
  static synchronized void register(SparkSession spark) {
    if (!spark.catalog().functionExists(CONNECT_DECIMAL)) {
      spark.udf().register(CONNECT_DECIMAL, (UDF2<String, Integer, String>) SemanticTypes::connectDecimal,
          DataTypes.StringType);
      spark.udf().register(VARIABLE_DECIMAL, (UDF1<String, String>) SemanticTypes::variableDecimal,
          DataTypes.StringType);
    }
  }

  /** A Connect decimal as the JSON converter writes it (base64 of the unscaled two's-complement bytes), as text. */
  static String connectDecimal(String base64, Integer scale) {
    if (base64 == null || scale == null) {
      return null;
    }
    try {
      return new BigDecimal(new BigInteger(Base64.getDecoder().decode(base64)), scale).toPlainString();
    } catch (IllegalArgumentException e) {
      return null; // not base64, or no bytes: the column check names the value
    }
  }

  /**
   * Debezium's {@code VariableScaleDecimal} ({@code {"scale": 2, "value": "<base64>"}}) as text, when it fits
   * {@code DECIMAL(38, 18)} exactly; null otherwise, so that the record goes to quarantine instead of being rounded.
   */
  static String variableDecimal(String json) {
    if (json == null) {
      return null;
    }
    try {
      JsonNode node = JSON.readTree(json);
      if (!node.path("scale").isInt() || !node.path("value").isTextual()) {
        return null;
      }
      BigDecimal value = new BigDecimal(new BigInteger(Base64.getDecoder().decode(node.path("value").asText())),
          node.path("scale").asInt());
      BigDecimal exact = value.signum() == 0 ? BigDecimal.ZERO : value.stripTrailingZeros();
      boolean fits = exact.scale() <= VARIABLE_SCALE && exact.precision() - exact.scale() <= 38 - VARIABLE_SCALE;
      return fits ? exact.toPlainString() : null;
    } catch (java.io.IOException | IllegalArgumentException e) {
      return null;
    }
  }
}
