package io.tributary.silver;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;

/**
 * Schema evolution's decisions: the column type a new field gets from the schema Spark infers over its JSON values,
 * widening, and how a field path is named. Spark's type classes only; no SparkSession.
 */
class SchemaChangesTest {

  private static DataType ddl(String text) {
    return DataType.fromDDL(text);
  }

  @Test
  void numbersTextAndObjectsKeepTheirInferredTypes() {
    assertThat(SchemaChanges.storable("BIGINT")).isEqualTo(DataTypes.LongType);
    assertThat(SchemaChanges.storable("DOUBLE")).isEqualTo(DataTypes.DoubleType);
    assertThat(SchemaChanges.storable("STRING")).isEqualTo(DataTypes.StringType);
    assertThat(SchemaChanges.storable("BOOLEAN")).isEqualTo(DataTypes.BooleanType);
    assertThat(SchemaChanges.storable("OBJECT<city: STRING, zip: BIGINT>"))
        .isEqualTo(ddl("STRUCT<city: STRING, zip: BIGINT>"));
  }

  @Test
  void decimalsGetTheWidestPrecisionWithTheirScale() {
    // A later value with more digits before the point must still fit.
    assertThat(SchemaChanges.storable("DECIMAL(5,2)")).isEqualTo(DataTypes.createDecimalType(38, 2));
    assertThat(SchemaChanges.storable("OBJECT<price: DECIMAL(3, 1)>"))
        .isEqualTo(ddl("STRUCT<price: DECIMAL(38,1)>"));
  }

  @Test
  void whatIcebergCannotStoreBecomesText() {
    assertThat(SchemaChanges.storable("OBJECT<a: VOID, b: BIGINT>")).as("a nested field seen only as null")
        .isEqualTo(ddl("STRUCT<a: STRING, b: BIGINT>"));
    assertThat(SchemaChanges.storable("ARRAY<VARIANT>")).as("an array of mixed values")
        .isEqualTo(DataTypes.createArrayType(DataTypes.StringType, true));
    assertThat(SchemaChanges.storable("ARRAY<VOID>")).as("only empty arrays seen")
        .isEqualTo(DataTypes.createArrayType(DataTypes.StringType, true));
    assertThat(SchemaChanges.storable("VARIANT")).isEqualTo(DataTypes.StringType);
  }

  @Test
  void aFieldSeenOnlyAsNullIsNotAddedYet() {
    assertThat(SchemaChanges.storable("VOID")).isNull();
    assertThat(SchemaChanges.storable(null)).as("no value at all").isNull();
  }

  @Test
  void intsBecomeBigintsAndFloatsDoubles() {
    assertThat(SchemaChanges.widened(DataTypes.IntegerType)).isEqualTo(DataTypes.LongType);
    assertThat(SchemaChanges.widened(DataTypes.FloatType)).isEqualTo(DataTypes.DoubleType);
  }

  @Test
  void fieldPathsAreQuotedPartByPart() {
    assertThat(SchemaChanges.quoted("address.city")).isEqualTo("`address`.`city`");
    assertThat(SchemaChanges.quoted("odd`name")).isEqualTo("`odd``name`");
    assertThat(SchemaChanges.jsonPath("address.city")).isEqualTo("$['address']['city']");
    assertThat(SchemaChanges.jsonPath("it's")).isEqualTo("$['it\\'s']");
  }
}
