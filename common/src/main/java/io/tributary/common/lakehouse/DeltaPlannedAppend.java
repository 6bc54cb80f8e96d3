package io.tributary.common.lakehouse;

import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;
import org.apache.spark.sql.delta.DeltaOperations;
import org.apache.spark.sql.delta.DeltaOptions;
import org.apache.spark.sql.delta.OptimisticTransaction;
import org.apache.spark.sql.delta.OptimisticTransaction$;
import org.apache.spark.sql.delta.Snapshot;
import org.apache.spark.sql.delta.actions.Action;
import org.apache.spark.sql.delta.commands.DMLUtils;
import org.apache.spark.sql.delta.commands.WriteIntoDelta;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * An append to a Delta table in a transaction read at the snapshot its writer planned on, where Delta's writer reads
 * at the newest one. Delta checks every commit made after the planned snapshot against what the transaction says it
 * depends on, and refuses the commit on a conflict (one of its concurrent-modification exceptions), so a decision
 * taken on the planned snapshot still holds when the commit lands.
 *
 * <p>Delta's writer, given a transaction (application id and version), first asks the table whether it has seen that
 * version, which rebuilds the table's state in a Spark job on every new version (about 0.4 s of a bronze batch of
 * 100,000 records here); this one records the transaction without asking: its callers know already.
 */
public final class DeltaPlannedAppend {
  private final DeltaLog log;
  private final Snapshot planned;
  private final Map<String, String> options = new HashMap<>();
  private String dependsOnTransaction;
  private boolean dependsOnTable;

  private DeltaPlannedAppend(DeltaLog log, Snapshot planned) {
    this.log = log;
    this.planned = planned;
  }

  /** An append to {@code log}'s table read at {@code planned}. */
  public static DeltaPlannedAppend at(DeltaLog log, Snapshot planned) {
    return new DeltaPlannedAppend(log, planned);
  }

  /** Refused when a commit after the planned snapshot carries a transaction of application {@code appId}. */
  public DeltaPlannedAppend dependsOnTransaction(String appId) {
    this.dependsOnTransaction = appId;
    return this;
  }

  /**
   * Refused also when a commit after the planned snapshot added or removed any of the table's data files (Delta's
   * default isolation, write-serializable, still lets a blind append by another writer pass, as for its own MERGE).
   */
  public DeltaPlannedAppend dependsOnTable() {
    this.dependsOnTable = true;
    return this;
  }

  /** Records transaction {@code version} of application {@code appId} with the commit. */
  public DeltaPlannedAppend records(String appId, long version) {
    options.put(DeltaOptions.TXN_APP_ID(), appId);
    options.put(DeltaOptions.TXN_VERSION(), Long.toString(version));
    return this;
  }

  /** The commit's user metadata. */
  public DeltaPlannedAppend userMetadata(String json) {
    options.put(DeltaOptions.USER_METADATA_OPTION(), json);
    return this;
  }

  /** Writes {@code rows} and commits them. */
  public void append(SparkSession spark, Dataset<Row> rows) {
    OptimisticTransaction txn = log.startTransaction(Option.empty(), Option.apply(planned));
    if (dependsOnTransaction != null) {
      txn.readTxn().addOne(dependsOnTransaction);
    }
    if (dependsOnTable) {
      txn.readWholeTable();
    }
    WriteIntoDelta write = new WriteIntoDelta(log, SaveMode.Append,
        new DeltaOptions(scalaMap(options), spark.sessionState().conf()),
        scala.collection.immutable.Seq$.MODULE$.empty(), scalaMap(Map.of()), rows, Option.empty(), Option.empty(),
        false);
    OptimisticTransaction$.MODULE$.setActive(txn);
    try {
      DMLUtils.TaggedCommitData<Action> data = write.writeAndReturnCommitData(txn, spark, Option.empty(), false);
      txn.commitIfNeeded(data.actions(), new DeltaOperations.Write(SaveMode.Append, Option.empty(), Option.empty(),
          Option.apply(options.get(DeltaOptions.USER_METADATA_OPTION())), Option.empty(), Option.empty(), Option.empty(), Option.empty(), Option.empty()),
          data.stringTags());
    } finally {
      OptimisticTransaction$.MODULE$.clearActive();
    }
  }

  private static scala.collection.immutable.Map<String, String> scalaMap(Map<String, String> values) {
    return scala.collection.immutable.Map$.MODULE$.from(CollectionConverters.asScala(values));
  }
}
