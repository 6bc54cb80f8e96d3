package io.tributary.silver;

import io.tributary.common.config.TableFormat;
import io.tributary.common.lakehouse.TableAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A silver or quarantine table as a stream's batches read and commit it, in either table format: its properties
 * (the truncates seen, the key, the owning checkpoint), its columns, the stream commits it holds, and the one
 * statement of a batch that commits as that batch.
 */
interface SilverTable {
  /** The name SQL statements use. */
  String name();

  TableFormat format();

  /** Reads the table's current state again: properties, schema and commits as of now. */
  void refresh();

  /** The table's properties as of the last {@link #refresh()}. */
  Map<String, String> properties();

  /** Sets one property, in a commit of its own. */
  void setProperty(String key, String value);

  /** The table's columns as of the last {@link #refresh()}, Tributary's included. */
  StructType schema();

  /** The batch of the newest commit stream {@code streamId} made to the table; cheaper than its commit. */
  OptionalLong newestBatch(String streamId);

  /** The newest commit in the table's current history made by stream {@code streamId}. */
  Optional<BatchCommit> newestCommit(String streamId);

  /** The newest commit of batch {@code batchId} of stream {@code streamId} in the table's current history. */
  Optional<BatchCommit> commitOf(String streamId, long batchId);

  /**
   * Runs the batch's writing statement so that its commit records {@code commit} ({@link CommittedBatches#properties}):
   * Iceberg in the snapshot summary, Delta in the commit's user metadata and its transaction identifiers.
   */
  <T> T commit(Map<String, String> commit, Callable<T> statement) throws Exception;

  /** Appends rows as the batch's commit. */
  void append(Dataset<Row> rows, Map<String, String> commit) throws Exception;

  /**
   * What the data files' column statistics say about whole-number key {@code column} (as Spark holds it: days for a
   * date, microseconds for a timestamp) outside {@code lowest} to {@code highest}, and whether any file may hold a key
   * within, as of the last {@link #refresh()} (a view behind the table changes only which files a MERGE reads, never
   * which rows it can match; an append of keys it says no file holds is checked against the commits after that view,
   * see {@link #appendNewKeys}); empty when the format cannot tell.
   */
  Optional<KeysOutside> keysOutside(String column, long lowest, long highest);

  /**
   * Appends {@code rows} as the batch's commit, where every row's first key meets {@code within}, a condition on the
   * table's columns that no file could meet as of the last {@link #refresh()} ({@link KeysOutside#noneWithin}): their
   * keys are new to the table. The commit is refused (a concurrent-commit failure: the stream restarts and plans the
   * batch again) when a commit after that state added rows that may meet the condition (Iceberg) or changed the
   * table's data at all (Delta), so these rows never double a key that another writer added meanwhile.
   */
  void appendNewKeys(Dataset<Row> rows, String within, Map<String, String> commit) throws Exception;

  /**
   * A SELECT of {@code view}'s columns named as the table's, in the table's order and types: the rows an append
   * writes (a MERGE's INSERT casts by itself, an append does not).
   */
  default String insertable(String view) {
    List<String> projections = new ArrayList<>();
    for (StructField field : schema().fields()) {
      String name = Columns.quote(field.name());
      projections.add("CAST(" + name + " AS " + field.dataType().sql() + ") AS " + name);
    }
    return "SELECT " + String.join(", ", projections) + " FROM " + view;
  }

  /**
   * @param highestBelow the highest key of the files whose keys all lie below the range, if any
   * @param lowestAbove the lowest key of the files whose keys all lie above it, if any
   * @param noneWithin whether no file may hold a key within the range: every file has key statistics and they lie
   *     outside it (so rows of keys within it are new to the table)
   */
  record KeysOutside(OptionalLong highestBelow, OptionalLong lowestAbove, boolean noneWithin) {

    /**
     * Folds the key spans of the table's files with key statistics and the number of files without them (which may
     * hold any key).
     */
    static KeysOutside of(long lowest, long highest, Iterable<FileKeys> files, long filesWithoutKeys) {
      OptionalLong below = OptionalLong.empty();
      OptionalLong above = OptionalLong.empty();
      boolean noneWithin = filesWithoutKeys == 0;
      for (FileKeys file : files) {
        if (file.highest() < lowest) {
          if (below.isEmpty() || file.highest() > below.getAsLong()) {
            below = OptionalLong.of(file.highest());
          }
        } else if (file.lowest() > highest) {
          if (above.isEmpty() || file.lowest() < above.getAsLong()) {
            above = OptionalLong.of(file.lowest());
          }
        } else {
          noneWithin = false;
        }
      }
      return new KeysOutside(below, above, noneWithin);
    }
  }

  /** The lowest and highest key one data file holds, from its statistics. */
  record FileKeys(long lowest, long highest) {}

  /**
   * One stream commit the table holds.
   *
   * @param version the table version it made (an Iceberg snapshot id, a Delta version)
   * @param bronzeEnd where in bronze the batch ended, when the commit recorded it
   */
  record BatchCommit(long version, long batchId, Optional<String> bronzeEnd) {}

  /** The table at {@code address}, which must exist. */
  static SilverTable open(SparkSession spark, TableAddress address) {
    return switch (address.format()) {
      case ICEBERG -> IcebergSilverTable.load(spark, address.sqlName());
      case DELTA -> new DeltaSilverTable(spark, address);
    };
  }
}
