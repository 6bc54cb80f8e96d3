package io.tributary.silver;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Schema evolution by policy {@code evolve}: adds the fields a batch brings that the silver table does not have
 * (nested ones too, typed from the values seen), and widens int and float columns to bigint and double when a value
 * needs it. Each change is a metadata commit of the silver table; a replayed batch finds nothing left to do.
 */
final class SchemaChanges {
  private static final Logger LOG = LoggerFactory.getLogger(SchemaChanges.class);

  private SchemaChanges() {}

  /**
   * Applies what the batch asks for ({@code decoded} is the output of {@link EntityRows}); returns whether anything
   * changed. A new top-level field whose type the change stream states ({@code stream}) gets that type; others
   * are typed from their values.
   */
  static boolean evolve(SparkSession spark, Dataset<Row> decoded, BatchSummary summary, String table,
      String entity, StreamVersions stream) {
    List<String> statements = new ArrayList<>();
    for (String path : summary.unknownFields()) {
      DataType type = (path.contains(".") ? java.util.Optional.<DataType>empty() : stream.declaredType(path))
          .orElseGet(() -> inferredType(decoded, path));
      if (type == null) {
        continue;
      }
      statements.add("ALTER TABLE " + table + " ADD COLUMN " + quoted(path) + " " + type.sql());
    }
    StructType current = spark.table(table).schema();
    for (String column : summary.widen()) {
      statements.add("ALTER TABLE " + table + " ALTER COLUMN " + quoted(column) + " TYPE "
          + widened(current.apply(column).dataType()).sql());
    }
    for (String statement : statements) {
      LOG.info("silver-{}: schema evolution: {}", entity, statement);
      spark.sql(statement);
    }
    return !statements.isEmpty();
  }

  /**
   * The type of a new field, merged over the batch's values: JSON objects become structs, numbers bigint, double
   * or decimal(38, s). Null when every value is null (the column is added once a value says its type).
   */
  private static DataType inferredType(Dataset<Row> decoded, String path) {
    String ddl = decoded.where("array_contains(unknown_fields, " + JsonFields.literal(path) + ")")
        .selectExpr("schema_of_variant_agg(variant_get(try_parse_json(image), " + JsonFields.literal(jsonPath(path))
            + "))")
        .first().getString(0);
    return storable(ddl);
  }

  /** The variant path of a dotted field path: {@code a.b} is {@code $['a']['b']}. */
  static String jsonPath(String path) {
    StringBuilder jsonPath = new StringBuilder("$");
    for (String part : path.split("\\.")) {
      jsonPath.append("['").append(part.replace("'", "\\'")).append("']");
    }
    return jsonPath.toString();
  }

  /**
   * The column type for the schema Spark infers from a field's JSON values ({@code schema_of_variant_agg}), or null
   * when the values were all null.
   */
  static DataType storable(String variantSchema) {
    if (variantSchema == null || variantSchema.equals("VOID")) {
      return null;
    }
    String spark = variantSchema.replace("OBJECT<", "STRUCT<")
        .replaceAll("DECIMAL\\(\\d+,\\s*(\\d+)\\)", "DECIMAL(38,$1)")
        // A nested field seen only as null: text keeps whatever comes later readable.
        .replace(": VOID", ": STRING");
    return withoutVariants(DataType.fromDDL(spark));
  }

  /** What a column that a value outgrew becomes: int to bigint, float to double. */
  static DataType widened(DataType from) {
    return from.equals(DataTypes.IntegerType) ? DataTypes.LongType : DataTypes.DoubleType;
  }

  /**
   * Types Iceberg cannot store become text: VARIANT (arrays of mixed JSON values), VOID (only nulls seen, e.g. in
   * an empty array) and empty structs.
   */
  private static DataType withoutVariants(DataType type) {
    if (type instanceof StructType struct && struct.fields().length == 0) {
      return DataTypes.StringType;
    }
    if (type instanceof org.apache.spark.sql.types.NullType) {
      return DataTypes.StringType;
    }
    if (type instanceof StructType struct) {
      List<StructField> fields = new ArrayList<>();
      for (StructField field : struct.fields()) {
        fields.add(DataTypes.createStructField(field.name(), withoutVariants(field.dataType()), true));
      }
      return DataTypes.createStructType(fields);
    }
    if (type.typeName().toLowerCase(Locale.ROOT).equals("variant")) {
      return DataTypes.StringType;
    }
    if (type instanceof org.apache.spark.sql.types.ArrayType array) {
      return DataTypes.createArrayType(withoutVariants(array.elementType()), true);
    }
    return type;
  }

  /** A dotted field path as SQL names it, each part quoted. */
  static String quoted(String path) {
    List<String> parts = new ArrayList<>();
    for (String part : path.split("\\.")) {
      parts.add("`" + part.replace("`", "``") + "`");
    }
    return String.join(".", parts);
  }
}
