package io.tributary.silver;

import io.tributary.common.config.SilverEntity;
import io.tributary.common.lakehouse.SilverCheckpoints;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.spark.sql.SparkSession;

/** The tables a rebuild builds beside the live one: laid out like it, with its properties as of a point in time. */
final class ShadowTables {
  private ShadowTables() {}

  /**
   * Creates {@code shadow} as a copy of {@code live} at {@code snapshotId}, with {@code properties} (the live
   * table's, as of that snapshot, see {@link #stateAt}) and the checkpoint its stream continues from.
   */
  static void copyOf(SparkSession spark, SilverEntity entity, Table liveTable, String live, long snapshotId,
      String shadow, Map<String, String> properties, String checkpoint) {
    Map<String, String> all = new LinkedHashMap<>(properties);
    all.put(SilverCheckpoints.PROPERTY, checkpoint);
    all.remove(SilverCheckpoints.SWITCHING);
    spark.sql("CREATE TABLE " + shadow + " USING iceberg PARTITIONED BY (" + partitioning(entity, liveTable) + ")"
        + " TBLPROPERTIES (" + sqlProperties(liveTable, all) + ") AS SELECT * FROM " + live + " VERSION AS OF "
        + snapshotId);
  }

  /** The table's properties now, with Tributary's state (remembered truncates) as it was at {@code millis}. */
  static Map<String, String> stateAt(Table table, long millis) {
    Map<String, String> properties = new LinkedHashMap<>(table.properties());
    String truncates = PropertiesAsOf.at(table, millis).get(Truncates.PROPERTY);
    if (truncates == null) {
      properties.remove(Truncates.PROPERTY);
    } else {
      properties.put(Truncates.PROPERTY, truncates);
    }
    return properties;
  }

  /** The silver layout: buckets of the first key column. */
  static String partitioning(SilverEntity entity, Table table) {
    return "bucket(" + entity.buckets() + ", `" + StreamShape.key(entity, IcebergSilverTable.of(table)).get(0) + "`)";
  }

  /**
   * Table properties for SQL that creates a table like {@code like}: its format version, and {@code properties}
   * without the ones Spark and Iceberg reserve (the owner, the format version).
   */
  static String sqlProperties(Table like, Map<String, String> properties) {
    return Stream.concat(Stream.of("'format-version' = '" + TableUtil.formatVersion(like) + "'"),
        properties.entrySet().stream()
            .filter(entry -> !entry.getKey().equals("owner") && !entry.getKey().equals("format-version"))
            .map(entry -> quote(entry.getKey()) + " = " + quote(entry.getValue())))
        .collect(Collectors.joining(", "));
  }

  private static String quote(String text) {
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }
}
