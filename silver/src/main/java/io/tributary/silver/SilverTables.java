package io.tributary.silver;

import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableName;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;
import io.tributary.common.config.TableFormat;
import io.tributary.common.lakehouse.DeltaTableNames;
import io.tributary.common.lakehouse.TableAddress;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the silver and quarantine tables on first use. In Iceberg: merge-on-read for cheap MERGE commits, entity
 * tables in the entity's format version (3 by default: deletion vectors), the quarantine table in format 2 (appends
 * only). In Delta: deletion vectors, and each table's name registered in the session catalog.
 */
final class SilverTables {
  private static final Logger LOG = LoggerFactory.getLogger(SilverTables.class);

  /**
   * Tributary's columns next to the entity's: the applied change's op, sequence, and where it came from.
   * ({@code _is_deleted}, not {@code _deleted}: Iceberg reserves that name for a metadata column.) Tables created
   * before {@link SequenceBytes#COLUMN} existed lack it and are merged without it.
   */
  static final String CHANGE_COLUMNS = "_op STRING, _seq ARRAY<BIGINT>, " + SequenceBytes.COLUMN + " BINARY,"
      + " _ts_ms BIGINT, _is_deleted BOOLEAN, _source_topic STRING, _source_partition INT, _source_offset BIGINT,"
      + " _updated_at TIMESTAMP";

  /** With history = scd2, each row is a version, valid from its change's time until the next version's. */
  static final String VALIDITY_COLUMNS = "_valid_from TIMESTAMP, _valid_to TIMESTAMP, _is_current BOOLEAN";

  /** The names of {@link #CHANGE_COLUMNS}, in table order. */
  static final List<String> CHANGE_NAMES = List.of(StructType.fromDDL(CHANGE_COLUMNS).fieldNames());

  /** The names of Tributary's own columns in an entity's table. */
  static final Set<String> RESERVED = Set.copyOf(Stream.concat(CHANGE_NAMES.stream(),
      Stream.of(StructType.fromDDL(VALIDITY_COLUMNS).fieldNames())).toList());

  static final String QUARANTINE_COLUMNS = "topic STRING, partition INT, offset BIGINT, kafka_timestamp TIMESTAMP,"
      + " key BINARY, value BINARY, entity STRING, stage STRING, reason STRING, quarantined_at TIMESTAMP";

  // Type widening: schema evolution widens a column (int to bigint) in place, as in Iceberg.
  private static final String DELTA_PROPERTIES = "'delta.enableDeletionVectors' = 'true', 'delta.enableTypeWidening' = 'true'";

  private static final String PROPERTIES = "'write.merge.mode' = 'merge-on-read',"
      + " 'write.update.mode' = 'merge-on-read', 'write.delete.mode' = 'merge-on-read',"
      + " 'write.parquet.compression-codec' = 'zstd'";

  private SilverTables() {}

  /**
   * Creates the entity's table, or adds to an existing one the columns the config names and the table lacks (so an
   * entity's schema can grow in config too). Columns the table has beyond the config (added by schema evolution)
   * stay. An entity that leaves its columns or key to the change stream takes them from {@code stream} when its
   * table is created, and the table records the key ({@link StreamShape#KEY_PROPERTY}).
   *
   * @param stream the entity's shape as the change stream states it; empty while there are no records to read it
   *     from
   * @return whether the table exists now (false: the stream has no records yet to take the shape from)
   */
  static boolean createEntityTable(SparkSession spark, TableAddress address, SilverEntity entity,
      Supplier<Optional<StreamShape.Shape>> stream) {
    String table = address.sqlName();
    if (!address.exists(spark)) {
      Optional<StreamShape.Shape> shape = entity.columnsFromStream() || entity.key().isEmpty() ? stream.get()
          : Optional.of(new StreamShape.Shape(entity.schema(), entity.key()));
      if (shape.isEmpty()) {
        return false;
      }
      String columns = shape.get().columns().toDDL() + ", " + CHANGE_COLUMNS
          + (entity.history() == SilverEntity.History.SCD2 ? ", " + VALIDITY_COLUMNS : "");
      if (entity.columnsFromStream()) {
        LOG.info("silver-{}: creating {} with the change stream's columns: {} (key {})", entity.name(), table,
            shape.get().columns().toDDL(), String.join(", ", shape.get().key()));
      }
      String keyProperty = "'" + StreamShape.KEY_PROPERTY + "' = "
          + JsonFields.literal(StreamShape.keyProperty(shape.get().key()));
      if (address.format() == TableFormat.DELTA) {
        // Deletion vectors: a MERGE marks the rows it replaces instead of rewriting their files (Delta's
        // merge-on-read). Not partitioned: Delta has no bucket transform (a MERGE skips files by their key ranges).
        spark.sql("CREATE TABLE IF NOT EXISTS " + table + " (" + columns + ") USING delta TBLPROPERTIES ("
            + DELTA_PROPERTIES + ", " + keyProperty + ")");
      } else {
        createNamespace(spark, address);
        spark.sql("CREATE TABLE IF NOT EXISTS " + table + " (" + columns + ") USING iceberg PARTITIONED BY (bucket("
            + entity.buckets() + ", `" + shape.get().key().get(0).replace("`", "``") + "`)) TBLPROPERTIES ("
            + "'format-version' = '" + entity.formatVersion() + "', " + PROPERTIES + ", " + keyProperty
            // Maintenance commits next to the stream (compaction commits its file groups one by one).
            + ", 'commit.retry.num-retries' = '10')");
      }
    }
    registerName(spark, address);
    StructType tableSchema = spark.table(table).schema();
    requireTributaryColumns(table, tableSchema, StructType.fromDDL(CHANGE_COLUMNS + (entity.history()
        == SilverEntity.History.SCD2 ? ", " + VALIDITY_COLUMNS : "")));
    if (entity.columnsFromStream()) {
      return true;
    }
    List<String> existing = List.of(tableSchema.fieldNames());
    for (StructField field : entity.schema().fields()) {
      if (!existing.contains(field.name())) {
        LOG.info("silver-{}: adding column {} from the config to {}", entity.name(), field.name(), table);
        spark.sql("ALTER TABLE " + table + " ADD COLUMN `" + field.name() + "` " + field.dataType().sql());
      }
    }
    return true;
  }

  /**
   * A table made by another history mode or an older Tributary (e.g. a single-number _seq) cannot be merged into;
   * say so up front rather than fail inside the first micro-batch.
   */
  private static void requireTributaryColumns(String table, StructType tableSchema, StructType expected) {
    List<String> wrong = new ArrayList<>();
    for (StructField field : expected.fields()) {
      Optional<StructField> found = Arrays.stream(tableSchema.fields())
          .filter(column -> column.name().equals(field.name())).findFirst();
      if (found.isEmpty() && field.name().equals(SequenceBytes.COLUMN)) {
        continue; // made by an earlier Tributary: merged with the guard on _seq itself
      }
      if (found.isEmpty() || !found.get().dataType().equals(field.dataType())) {
        wrong.add(field.name() + " " + field.dataType().sql() + " (the table has "
            + found.map(column -> column.dataType().sql()).orElse("no such column") + ")");
      }
    }
    if (!wrong.isEmpty()) {
      throw new IllegalStateException(table + " was not created by this version of Tributary for this entity's"
          + " history mode; it needs " + String.join(", ", wrong) + ". Rebuild it from bronze: drop the table and"
          + " delete its checkpoint folder, then run silver again.");
    }
  }

  /** The names of {@link #CHANGE_COLUMNS} the table has, in table order. */
  static List<String> changeColumns(SilverTable table) {
    List<String> present = List.of(table.schema().fieldNames());
    return CHANGE_NAMES.stream().filter(present::contains).toList();
  }

  /** The entity's columns as the table has them now: the config's, plus what schema evolution added. */
  static StructType entitySchema(SilverTable table) {
    List<StructField> fields = new ArrayList<>();
    for (StructField field : table.schema().fields()) {
      if (!RESERVED.contains(field.name())) {
        fields.add(field);
      }
    }
    return new StructType(fields.toArray(new StructField[0]));
  }

  static void createQuarantineTable(SparkSession spark, TableAddress quarantine) {
    if (quarantine.format() == TableFormat.DELTA) {
      // Appends only, from every entity's stream: Delta retries appends that meet each other by itself.
      spark.sql("CREATE TABLE IF NOT EXISTS " + quarantine.sqlName() + " (" + QUARANTINE_COLUMNS + ") USING delta"
          + " PARTITIONED BY (entity)");
    } else {
      createNamespace(spark, quarantine);
      // Every entity's stream appends here, so commits meet each other: retry them longer than Iceberg's default 4.
      spark.sql("CREATE TABLE IF NOT EXISTS " + quarantine.sqlName() + " (" + QUARANTINE_COLUMNS + ") USING iceberg"
          + " PARTITIONED BY (entity, days(quarantined_at))"
          + " TBLPROPERTIES ('format-version' = '2', " + PROPERTIES + ", 'commit.retry.num-retries' = '20')");
    }
    registerName(spark, quarantine);
  }

  /** A Delta table's name in the session catalog, so that users' SQL finds it without its path. */
  private static void registerName(SparkSession spark, TableAddress table) {
    if (table.format() == TableFormat.DELTA) {
      DeltaTableNames.register(spark, table.name(), table.deltaPath());
    }
  }

  private static void createNamespace(SparkSession spark, TableAddress table) {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS " + table.namespaceSqlName());
  }
}
