package io.tributary.silver;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tributary.common.config.InvalidConfigException;
import io.tributary.common.config.SilverEntity;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import io.tributary.common.lakehouse.TableAddress;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The columns and key of an entity whose config leaves them to the change stream, read when its silver table is
 * created: the columns from the schemas of bronze's newest records (the newest version's columns first, then what
 * other versions add), the key from their Kafka key's schema. The table keeps the key in {@value #KEY_PROPERTY};
 * later versions' new columns come through schema evolution, typed as the stream states them.
 */
public final class StreamShape {
  /** The table property holding the key columns of an entity whose config names none (a JSON array). */
  static final String KEY_PROPERTY = "tributary.silver.key";

  private static final ObjectMapper JSON = new ObjectMapper();

  /** An entity's columns (without Tributary's) and its key columns. */
  record Shape(StructType columns, List<String> key) {}

  private StreamShape() {}

  /** The key of the entity's silver table at {@code table}: the config's, else the table's. */
  public static List<String> key(SparkSession spark, SilverEntity entity, TableAddress table) {
    return entity.key().isEmpty() ? key(entity, SilverTable.open(spark, table)) : entity.key();
  }

  /** The entity's key: the config's, else the one its table recorded when it was created. */
  static List<String> key(SilverEntity entity, SilverTable silver) {
    if (!entity.key().isEmpty()) {
      return entity.key();
    }
    String recorded = silver.properties().get(KEY_PROPERTY);
    if (recorded == null) {
      throw new InvalidConfigException(List.of(entity.setting("key") + ": is missing,"
          + " and " + silver.name() + " records no key columns (" + KEY_PROPERTY + "); name the key columns"));
    }
    try {
      return List.of(JSON.readValue(recorded, String[].class));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(silver.name() + ": property " + KEY_PROPERTY + " is not a JSON array of column"
          + " names: " + recorded, e);
    }
  }

  /** The value of {@link #KEY_PROPERTY} for {@code key}. */
  static String keyProperty(List<String> key) {
    try {
      return JSON.writeValueAsString(key);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The shape of {@code entity} from the newest records of bronze table {@code bronze} (the rows its latest append
   * added); empty while bronze has none. Fails in one line naming the config key when the records cannot say: JSON
   * without schema blocks, keys without fields.
   *
   * @param table the silver table, for the message of a type that cannot be mapped
   */
  static Optional<Shape> fromBronze(BronzeFeed bronze, SilverEntity entity, ChangeDecoder decoder, String table) {
    Optional<Dataset<Row>> newest = bronze.newestRecords();
    if (newest.isEmpty()) {
      return Optional.empty();
    }
    try {
      return fromRecords(newest.get(), entity, decoder, "the newest change events in " + bronze, table);
    } catch (Unknown unknown) {
      throw new InvalidConfigException(List.of(unknown.getMessage()));
    }
  }

  /**
   * The shape of {@code entity} from {@code records} (bronze rows); empty when none has a value.
   *
   * @param where what the records are, for messages ("the newest records in lake.bronze.items")
   * @throws Unknown when the records cannot state the shape
   */
  static Optional<Shape> fromRecords(Dataset<Row> all, SilverEntity entity, ChangeDecoder decoder, String where,
      String table) {
    Dataset<Row> records = all.where("value IS NOT NULL").localCheckpoint();
    try {
      if (records.isEmpty()) {
        return Optional.empty();
      }
      StructType columns = entity.columnsFromStream() ? columns(records, entity, decoder, where, table)
          : entity.schema();
      List<String> key = entity.key().isEmpty() ? keyOf(records, entity, decoder, where) : entity.key();
      List<String> names = List.of(columns.fieldNames());
      for (String column : key) {
        if (!names.contains(column)) {
          throw new Unknown(Unknown.Reason.KEY_NOT_A_COLUMN, prefix(entity) + "key: the Kafka key's field '" + column
              + "' is not a column of the change events in " + where + " (columns: " + String.join(", ", names)
              + "); name the key columns");
        }
      }
      return Optional.of(new Shape(columns, key));
    } finally {
      io.tributary.common.lakehouse.LocalCheckpoints.release(records);
    }
  }

  /** Records that cannot state an entity's columns or key; the message names the setting that would. */
  static final class Unknown extends RuntimeException {
    enum Reason {
      /** No schema block or writer schema: not Debezium change events, or JSON without schemas. */
      NO_SCHEMA,
      /** A null Kafka key or one without fields: a source table without a primary key. */
      NO_KEY,
      KEY_NOT_A_COLUMN
    }

    private final Reason reason;

    Unknown(Reason reason, String message) {
      super(message);
      this.reason = reason;
    }

    Reason reason() {
      return reason;
    }
  }

  private static StructType columns(Dataset<Row> records, SilverEntity entity, ChangeDecoder decoder, String where,
      String table) {
    Dataset<Row> envelopes = decoder.envelopes(records);
    Map<Long, StreamColumns> versions = decoder.stated(envelopes).values();
    if (versions.isEmpty()) {
      throw new Unknown(Unknown.Reason.NO_SCHEMA, prefix(entity) + "schema: is missing, and " + where + " carry no"
          + " schema to take the columns from (JSON written with the converter's schemas.enable = false, Avro whose"
          + " schema ids the registry does not know, or records that are not Debezium change events); give the"
          + " entity a schema");
    }
    List<Row> newestVersion = envelopes.where("schema_version IS NOT NULL").orderBy(
        org.apache.spark.sql.functions.col("kafka_timestamp").desc(), org.apache.spark.sql.functions.col("offset")
            .desc()).select("schema_version").limit(1).collectAsList();
    List<StreamColumns> ordered = new ArrayList<>();
    if (!newestVersion.isEmpty() && versions.containsKey(newestVersion.get(0).getLong(0))) {
      ordered.add(versions.get(newestVersion.get(0).getLong(0)));
    }
    ordered.addAll(versions.values());
    Map<String, StructField> fields = new LinkedHashMap<>();
    for (StreamColumns version : ordered) {
      Arrays.stream(version.schema(table).fields()).forEach(field -> fields.putIfAbsent(field.name(), field));
    }
    return DataTypes.createStructType(new ArrayList<>(fields.values()));
  }

  private static List<String> keyOf(Dataset<Row> records, SilverEntity entity, ChangeDecoder decoder,
      String where) {
    List<String> key = decoder.keySchema(records).map(StreamColumns::keyOf).orElse(List.of());
    if (key.isEmpty()) {
      throw new Unknown(Unknown.Reason.NO_KEY, prefix(entity) + "key: is missing, and " + where + " have no Kafka"
          + " key with fields to take it from (a source table without a primary key has a null key); name the key"
          + " columns");
    }
    return key;
  }

  private static String prefix(SilverEntity entity) {
    return entity.configPath() + ".";
  }
}
