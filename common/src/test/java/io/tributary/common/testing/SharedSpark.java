package io.tributary.common.testing;

import io.tributary.common.lakehouse.LakehouseSession;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One {@code local[2]} SparkSession per test JVM, with both table formats' extensions, stopped when the JVM exits.
 * Tests get it as a parameter with {@code @ExtendWith(SharedSpark.class)}; each test registers its own catalog
 * (and warehouse) through {@link LakehouseSession#registerCatalog}.
 */
public final class SharedSpark implements ParameterResolver {
  private static SparkSession session;

  public static synchronized SparkSession session() {
    if (session == null) {
      SparkSession.Builder builder = SparkSession.builder()
          .master("local[2]")
          .appName("tributary-tests")
          .config("spark.ui.enabled", "false")
          .config("spark.driver.bindAddress", "127.0.0.1")
          .config("spark.driver.host", "127.0.0.1")
          .config("spark.sql.shuffle.partitions", "4")
          .config("spark.default.parallelism", "4")
          .config("spark.databricks.delta.snapshotPartitions", "2")
          .config("spark.sql.streaming.stopTimeout", "30s")
          // The session catalog's folder in the build's output, not an empty spark-warehouse/ in the module.
          .config("spark.sql.warehouse.dir", "target/spark-warehouse");
      LakehouseSession.staticSettings().forEach(builder::config);
      session = builder.getOrCreate();
      session.sparkContext().setLogLevel("WARN");
      SparkSession started = session;
      Runtime.getRuntime().addShutdownHook(new Thread(started::stop, "stop-test-spark"));
    }
    return session;
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == SparkSession.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return session();
  }
}
