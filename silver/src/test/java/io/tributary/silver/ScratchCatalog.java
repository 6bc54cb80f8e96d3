package io.tributary.silver;

import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/** An Iceberg catalog of the test's own, in a temporary folder, with a {@code silver} namespace. */
final class ScratchCatalog {
  private ScratchCatalog() {}

  /** Registers {@code name} in the shared session, with {@code extra} settings (name, value, ...) of the catalog. */
  static void register(SparkSession spark, String name, Path warehouse, String... extra) {
    String prefix = "spark.sql.catalog." + name;
    spark.conf().set(prefix, "org.apache.iceberg.spark.SparkCatalog");
    spark.conf().set(prefix + ".type", "hadoop");
    spark.conf().set(prefix + ".warehouse", warehouse.toString());
    for (int i = 0; i + 1 < extra.length; i += 2) {
      spark.conf().set(prefix + "." + extra[i], extra[i + 1]);
    }
    spark.sql("CREATE NAMESPACE IF NOT EXISTS " + name + ".silver");
  }
}
