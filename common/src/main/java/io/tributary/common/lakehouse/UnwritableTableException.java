package io.tributary.common.lakehouse;

import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;
import scala.Option;

/**
 * A table that this release cannot write: a Delta table whose protocol asks for a reader or writer version or a table
 * feature newer than the Delta Lake it ships (upgraded by another engine, or by a newer Tributary). Said before the
 * job writes anything, in one line naming the table and what it needs, rather than as the failure of a stream's
 * first commit.
 */
public final class UnwritableTableException extends RuntimeException {
  private UnwritableTableException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * Fails when the Delta table at {@code path} exists and its protocol is one this release cannot write.
   *
   * @param role what the table is to the job, e.g. {@code silver-customers: lake.silver.customers}
   */
  public static void requireWritableDelta(SparkSession spark, String path, String role) {
    DeltaLog log = DeltaLog.forTable(spark, new Path(path));
    var snapshot = log.update(false, Option.empty(), Option.empty());
    if (snapshot.version() < 0) {
      return;
    }
    try {
      log.protocolRead(snapshot.protocol());
      log.protocolWrite(snapshot.protocol());
    } catch (RuntimeException refused) {
      String reason = String.valueOf(refused.getMessage()).lines().findFirst().orElse("").trim();
      throw new UnwritableTableException(role + " (Delta table at " + path + ") has Delta protocol "
          + describe(snapshot.protocol()) + ", which this release's Delta Lake" + deltaVersion()
          + " cannot write (" + reason + "). Nothing was written. Run a Tributary built with a Delta Lake that"
          + " supports it, or point the job at another table", refused);
    }
  }

  private static String deltaVersion() {
    String version = io.delta.tables.DeltaTable.class.getPackage().getImplementationVersion();
    return version == null ? "" : " (" + version + ")";
  }

  private static String describe(org.apache.spark.sql.delta.actions.Protocol protocol) {
    String features = protocol.writerFeatures().isDefined()
        ? " with writer features " + scala.jdk.javaapi.CollectionConverters.asJava(protocol.writerFeatures().get())
            .stream().sorted().toList() : "";
    return "(reader " + protocol.minReaderVersion() + ", writer " + protocol.minWriterVersion() + features + ")";
  }
}
