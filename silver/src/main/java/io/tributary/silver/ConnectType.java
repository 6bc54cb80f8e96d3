package io.tributary.silver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

/**
 * A Kafka Connect schema as a change stream states it: the physical type ({@code int32}, {@code struct}, ...), the
 * semantic name a connector gives it ({@code io.debezium.time.MicroTimestamp}) with its parameters (a decimal's
 * scale), and, for values that came through Avro, whether {@link AvroJson} already turned an Avro logical type into
 * its value (a decimal's number, a date's ISO text). Read from the JSON converter's {@code schema} block or from an Avro writer schema made by an Avro
 * converter (which keeps Connect's names in {@code connect.name} and {@code connect.parameters}).
 *
 * @param type Connect's physical type: int8, int16, int32, int64, float (float32), double (float64), boolean,
 *     string, bytes, struct, array or map
 * @param name the semantic name, empty for a plain type
 * @param parameters the semantic type's parameters (a decimal's {@code scale}, its
 *     {@code connect.decimal.precision})
 * @param fields a struct's fields, in order
 * @param items an array's element type, or a map's value type
 * @param mapKeys a map's key type
 * @param avroLogical the Avro logical type {@link AvroJson} decoded the value with ({@code decimal}, {@code date},
 *     {@code timestamp-millis}, ...), empty when the value arrives as its physical type
 */
record ConnectType(String type, String name, Map<String, String> parameters, List<Field> fields, ConnectType items,
    ConnectType mapKeys, String avroLogical) {

  /** A struct's field. */
  record Field(String name, ConnectType type) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The field of a struct, if it has one of that name. */
  Optional<ConnectType> field(String fieldName) {
    return fields.stream().filter(field -> field.name().equals(fieldName)).map(Field::type).findFirst();
  }

  /** A schema from the JSON converter ({@code {"type": "struct", "fields": [...], ...}}), as text. */
  static ConnectType ofJson(String schemaBlock) {
    try {
      return ofJson(JSON.readTree(schemaBlock));
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException("the schema block is not JSON: " + e.getMessage(), e);
    }
  }

  static ConnectType ofJson(JsonNode node) {
    String type = node.path("type").asText("");
    Map<String, String> parameters = new LinkedHashMap<>();
    node.path("parameters").fields().forEachRemaining(entry -> parameters.put(entry.getKey(),
        entry.getValue().asText()));
    List<Field> fields = new ArrayList<>();
    for (JsonNode field : node.path("fields")) {
      fields.add(new Field(field.path("field").asText(), ofJson(field)));
    }
    ConnectType items = switch (type) {
      case "array" -> ofJson(node.path("items"));
      case "map" -> ofJson(node.path("values"));
      default -> null;
    };
    ConnectType keys = type.equals("map") ? ofJson(node.path("keys")) : null;
    return new ConnectType(type, node.path("name").asText(""), Map.copyOf(parameters), List.copyOf(fields), items,
        keys, "");
  }

  /** An Avro writer schema made by an Avro converter from a Connect schema. */
  static ConnectType ofAvro(Schema schema) {
    Schema plain = nonNull(schema);
    Map<String, String> parameters = new LinkedHashMap<>();
    if (plain.getObjectProp("connect.parameters") instanceof Map<?, ?> given) {
      given.forEach((key, value) -> parameters.put(String.valueOf(key), String.valueOf(value)));
    }
    Object connectName = plain.getObjectProp("connect.name");
    LogicalType logical = plain.getLogicalType();
    String name = connectName != null ? connectName.toString() : logical == null ? "" : switch (logical.getName()) {
      // A writer schema made without Connect's names: Avro's logical types are Connect's.
      case "decimal" -> "org.apache.kafka.connect.data.Decimal";
      case "date" -> "org.apache.kafka.connect.data.Date";
      case "time-millis" -> "org.apache.kafka.connect.data.Time";
      case "timestamp-millis" -> "org.apache.kafka.connect.data.Timestamp";
      case "timestamp-micros" -> "io.debezium.time.MicroTimestamp";
      default -> "";
    };
    if (logical instanceof LogicalTypes.Decimal decimal) {
      parameters.putIfAbsent("scale", String.valueOf(decimal.getScale()));
      parameters.putIfAbsent("connect.decimal.precision", String.valueOf(decimal.getPrecision()));
    }
    Object connectType = plain.getObjectProp("connect.type");
    List<Field> fields = new ArrayList<>();
    ConnectType items = null;
    ConnectType keys = null;
    String type = switch (plain.getType()) {
      case INT -> connectType == null ? "int32" : connectType.toString();
      case LONG -> "int64";
      case FLOAT -> "float";
      case DOUBLE -> "double";
      case BOOLEAN -> "boolean";
      case STRING, ENUM -> "string";
      case BYTES, FIXED -> "bytes";
      case RECORD -> {
        for (Schema.Field field : plain.getFields()) {
          fields.add(new Field(field.name(), ofAvro(field.schema())));
        }
        yield "struct";
      }
      case ARRAY -> {
        Schema element = plain.getElementType();
        // Converters write a map with non-string keys as an array of key/value records.
        if (element.getType() == Schema.Type.RECORD && "map".equals(String.valueOf(connectType))) {
          keys = ofAvro(element.getField("key").schema());
          items = ofAvro(element.getField("value").schema());
          yield "map";
        }
        items = ofAvro(element);
        yield "array";
      }
      case MAP -> {
        keys = new ConnectType("string", "", Map.of(), List.of(), null, null, "");
        items = ofAvro(plain.getValueType());
        yield "map";
      }
      default -> plain.getType().getName();
    };
    return new ConnectType(type, name, Map.copyOf(parameters), List.copyOf(fields), items, keys,
        logical == null ? "" : logical.getName());
  }

  /** The branch of an optional union ([null, X]) that holds values; the schema itself otherwise. */
  static Schema nonNull(Schema schema) {
    if (schema.getType() != Schema.Type.UNION) {
      return schema;
    }
    List<Schema> branches = schema.getTypes().stream().filter(branch -> branch.getType() != Schema.Type.NULL)
        .toList();
    return branches.size() == 1 ? branches.get(0) : schema;
  }
}
