package io.tributary.silver;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import io.tributary.common.config.ConfigNames;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import io.tributary.common.lakehouse.TableAddress;
import io.tributary.common.lakehouse.Tables;
import io.tributary.common.testing.SharedSpark;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The merge itself, batch by batch, on hand-written Debezium changes: late changes never win, deletes are not
 * resurrected, truncates, hard deletes, history (SCD2), schema evolution, replays change nothing, and one batch of
 * everything (a rebuild) ends in the same table as many small ones.
 */
@ExtendWith(SharedSpark.class)
class CdcMergeIT {
  private static final String STREAM = "merge-test-stream";

  @TempDir Path dir;
  private SparkSession spark;
  private String catalog;
  private long offset;
  /** The format of the silver tables of the running test. */
  private TableFormat format = TableFormat.ICEBERG;

  @BeforeEach
  void stream(SparkSession spark, TestInfo test) {
    this.spark = spark;
    this.catalog = "merge_" + test.getTestMethod().orElseThrow().getName().toLowerCase();
    spark.sparkContext().setLocalProperty("sql.streaming.queryId", STREAM);
  }

  @AfterEach
  void noStream() {
    spark.sparkContext().setLocalProperty("sql.streaming.queryId", null);
  }

  /** A merge into {@code silver.<table>} for an entity of people with the given extra settings. */
  private CdcMerge merge(String table, String settings) {
    return merge(table, "id BIGINT, name STRING", settings);
  }

  private CdcMerge merge(String table, String schema, String settings) {
    TributaryConfig config = TributaryConfig.from(ConfigFactory.parseString("tributary {\n"
        + " catalog { name = " + catalog + ", warehouse = \"" + dir.resolve("wh") + "\" }\n"
        + " kafka.bootstrap-servers = \"127.0.0.1:1\"\n checkpoint-location = \"" + dir.resolve("cp") + "\"\n"
        + " silver.format = " + ConfigNames.of(format) + "\n"
        + " silver.entities." + table + " {\n source = bronze.people\n key = [id]\n table = silver." + table
        + "\n schema = \"" + schema + "\"\n " + settings + "\n }\n}"));
    LakehouseSession.registerCatalog(spark, config.catalog());
    SilverEntity entity = config.silver().entities().get(table);
    Tables tables = new Tables(config.catalog());
    TableAddress silver = TableAddress.of(tables, entity.table(), format);
    TableAddress quarantine = TableAddress.of(tables, config.silver().quarantine(), format);
    SilverTables.createEntityTable(spark, silver, entity, java.util.Optional::empty);
    SilverTables.createQuarantineTable(spark, quarantine);
    String checkpoint = io.tributary.common.lakehouse.SilverCheckpoints.configured(config, entity);
    return new CdcMerge(entity, config.schemaRegistry(), silver, quarantine, checkpoint, checkpoint);
  }

  /** The SQL name of table {@code silver.<table>} in the running test's format. */
  private String table(String table) {
    return format == TableFormat.DELTA ? "delta.`" + dir.resolve("wh/_delta/silver").resolve(table) + "`"
        : catalog + ".silver." + table;
  }

  /** A Debezium change whose image holds {@code fields} besides the id; its source time is lsn seconds. */
  private Row change(String op, long id, long lsn, String fields) {
    String image = "{\"id\":" + id + (fields.isEmpty() ? "" : "," + fields) + "}";
    String value = op.equals("t") ? "{\"before\":null,\"after\":null,\"source\":{\"connector\":\"postgresql\","
        + "\"lsn\":" + lsn + ",\"ts_ms\":" + lsn * 1000 + "},\"op\":\"t\",\"ts_ms\":1}"
        : "{\"before\":" + (op.equals("d") ? image : "null") + ",\"after\":" + (op.equals("d") ? "null" : image)
        + ",\"source\":{\"connector\":\"postgresql\",\"lsn\":" + lsn + ",\"ts_ms\":" + lsn * 1000 + "},\"op\":\""
        + op + "\",\"ts_ms\":1}";
    Timestamp now = new Timestamp(System.currentTimeMillis());
    return RowFactory.create("t", 0, offset++, now, ("{\"id\":" + id + "}").getBytes(UTF_8), value.getBytes(UTF_8),
        null, now);
  }

  private Row change(String op, long id, long lsn) {
    return change(op, id, lsn, "\"name\":\"" + id + "@" + lsn + "\"");
  }

  private Row truncate(long lsn) {
    return change("t", 0, lsn, "");
  }

  private Dataset<Row> batch(Row... rows) {
    return spark.createDataFrame(new ArrayList<>(List.of(rows)), DecodersIT.BRONZE);
  }

  /** Every row of a current-state table as id → name/state. */
  private Map<Long, String> state(String table) {
    Map<Long, String> state = new TreeMap<>();
    for (Row row : spark.sql("SELECT id, name, _is_deleted, _op FROM " + table(table)).collectAsList()) {
      state.put(row.getLong(0), row.getString(1) + (row.getBoolean(2) ? "/deleted-" + row.getString(3) : "/live"));
    }
    return state;
  }

  /** The whole table but the time each row was written, in a stable order, for comparing two tables. */
  private List<String> content(String table) {
    return spark.table(table(table)).drop("_updated_at").orderBy("id", "_seq").toJSON()
        .collectAsList();
  }

  /** The table's snapshots (Iceberg) or versions (Delta). */
  private long snapshots(String table) {
    return format == TableFormat.DELTA ? spark.sql("DESCRIBE HISTORY " + table(table)).count()
        : spark.table(table(table) + ".snapshots").count();
  }

  /** Data files of a Delta silver table that carry a deletion vector, from its log. */
  private long filesWithDeletionVectors(String table) {
    return org.apache.spark.sql.delta.DeltaLog.forTable(spark, dir.resolve("wh/_delta/silver").resolve(table)
        .toString()).update(false, scala.Option.empty(), scala.Option.empty()).allFiles().toDF()
        .where("deletionVector IS NOT NULL").count();
  }

  /**
   * On Delta, an engine without Spark (Delta Kernel's default engine: its own log replay, Parquet reader and
   * deletion vectors) reads the same columns and rows as Spark.
   */
  private void kernelReadsWhatSparkReads(String table) {
    if (format != TableFormat.DELTA) {
      return;
    }
    String path = dir.resolve("wh/_delta/silver").resolve(table).toString();
    Dataset<Row> viaSpark = spark.read().format("delta").load(path);
    assertThat(KernelTableReader.columns(path)).containsExactly(viaSpark.columns());
    List<String> sparkRows = viaSpark.collectAsList().stream().map(KernelTableReader::plain).map(String::valueOf)
        .sorted().toList();
    assertThat(KernelTableReader.rows(path).stream().map(String::valueOf).sorted().toList()).isNotEmpty()
        .isEqualTo(sparkRows);
  }

  /** The kinds of delete file a table holds: Puffin deletion vectors in format 3, Parquet position deletes in 2. */
  private List<String> deleteFileFormats(String table) {
    return spark.sql("SELECT DISTINCT file_format FROM " + table(table) + ".delete_files")
        .as(org.apache.spark.sql.Encoders.STRING()).collectAsList();
  }

  private int formatVersion(String table) throws Exception {
    return org.apache.iceberg.TableUtil.formatVersion(org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark,
        table(table)));
  }

  /** Sets the running test's format from a case name: iceberg-v3, iceberg-v2 or delta...; returns the Iceberg version. */
  private int use(String layout) {
    format = layout.startsWith("delta") ? TableFormat.DELTA : TableFormat.ICEBERG;
    catalog += "_" + layout.replace('-', '_');
    return format == TableFormat.DELTA ? 0 : Integer.parseInt(layout.substring(layout.length() - 1));
  }

  private void use(TableFormat format) {
    this.format = format;
    catalog += "_" + ConfigNames.of(format);
  }

  /**
   * A Delta silver table upgraded by another engine to a table feature this release's Delta Lake cannot write: the
   * silver job fails before its stream starts, with one line naming the entity, the table and the feature, and the
   * table keeps its rows.
   */
  @org.junit.jupiter.api.Test
  void aDeltaTableThisReleaseCannotWriteFailsTheJobInOneLineAndKeepsItsRows() throws Exception {
    use(TableFormat.DELTA);
    spark.sparkContext().setLocalProperty("sql.streaming.queryId", null);
    TributaryConfig config = TributaryConfig.from(ConfigFactory.parseString("tributary {\n"
        + " catalog { name = " + catalog + ", warehouse = \"" + dir.resolve("wh") + "\" }\n"
        + " kafka.bootstrap-servers = \"127.0.0.1:1\"\n checkpoint-location = \"" + dir.resolve("cp") + "\"\n"
        + " bronze.format = delta\n silver.format = delta\n"
        + " bronze.sources.people { topic = t, table = bronze.people }\n"
        + " silver.entities.people { source = bronze.people, key = [id], table = silver.people,"
        + " schema = \"id BIGINT, name STRING\" }\n}"));
    String bronze = dir.resolve("wh/_delta/bronze/people").toString();
    batch(change("c", 1, 100), change("c", 2, 110)).write().format("delta").mode("append").save(bronze);
    new SilverMergeJob(spark, config).runUntilCaughtUp();
    Map<Long, String> before = state("people");
    assertThat(before).hasSize(2);

    String silver = dir.resolve("wh/_delta/silver/people").toString();
    var protocol = org.apache.spark.sql.delta.DeltaLog.forTable(spark, silver)
        .update(false, scala.Option.empty(), scala.Option.empty()).protocol();
    assertThat(protocol.minWriterVersion()).isEqualTo(7); // table features: deletion vectors, type widening
    List<String> writerFeatures = new ArrayList<>(scala.jdk.javaapi.CollectionConverters.asJava(
        protocol.writerFeatures().get()));
    writerFeatures.add("tributaryFutureFeature");
    long next = org.apache.spark.sql.delta.DeltaLog.forTable(spark, silver)
        .update(false, scala.Option.empty(), scala.Option.empty()).version() + 1;
    java.nio.file.Files.writeString(Path.of(silver, "_delta_log", String.format("%020d.json", next)),
        "{\"protocol\":{\"minReaderVersion\":" + protocol.minReaderVersion() + ",\"minWriterVersion\":7,"
        + "\"readerFeatures\":" + json(scala.jdk.javaapi.CollectionConverters.asJava(protocol.readerFeatures().get()))
        + ",\"writerFeatures\":" + json(writerFeatures) + "}}\n");
    batch(change("u", 1, 200)).write().format("delta").mode("append").save(bronze);

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new SilverMergeJob(spark, config).runUntilCaughtUp())
        .isInstanceOf(io.tributary.common.lakehouse.UnwritableTableException.class)
        .hasMessageStartingWith("silver-people: spark_catalog.`silver`.`people` (Delta table at " + silver + ") has Delta"
            + " protocol (reader 3, writer 7 with writer features [")
        .hasMessageContaining("tributaryFutureFeature")
        .hasMessageContaining("Nothing was written")
        .satisfies(failure -> assertThat(failure.getMessage()).doesNotContain("\n"));
    assertThat(state("people")).isEqualTo(before);
  }

  private static String json(java.util.Collection<String> names) {
    return names.stream().sorted().map(name -> "\"" + name + "\"").collect(java.util.stream.Collectors.joining(",",
        "[", "]"));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"iceberg-v3", "iceberg-v2", "delta", "delta-deletion-vectors"})
  void lateChangesLoseDeletesStayDeletedAndReplaysAreSkipped(String layout) throws Exception {
    int formatVersion = use(layout);
    CdcMerge merge = merge("people", formatVersion == 2 ? "format-version = 2" : "");
    if (layout.equals("delta-deletion-vectors")) {
      // A table this small is rewritten unless told otherwise (DeltaSilverTable.rewritesFiles).
      spark.sql("ALTER TABLE " + table("people") + " SET TBLPROPERTIES ('" + DeltaSilverTable.COPY_ON_WRITE_BELOW
          + "' = '0')");
    }
    merge.apply(batch(change("c", 1, 100), change("u", 1, 300), change("c", 2, 110), change("c", 3, 120),
        change("d", 3, 400)), 0);
    assertThat(state("people")).isEqualTo(Map.of(1L, "1@300/live", 2L, "2@110/live", 3L, "3@400/deleted-d"));

    Dataset<Row> late = batch(change("u", 1, 200), change("u", 3, 350), change("u", 2, 500), change("c", 4, 50));
    merge.apply(late, 1);
    Map<Long, String> afterLate = Map.of(1L, "1@300/live", 2L, "2@500/live", 3L, "3@400/deleted-d", 4L, "4@50/live");
    assertThat(state("people")).isEqualTo(afterLate);

    long snapshots = snapshots("people");
    merge.apply(late, 1);
    assertThat(snapshots("people")).isEqualTo(snapshots);
    assertThat(state("people")).isEqualTo(afterLate);
    if (format == TableFormat.DELTA) {
      assertThat(spark.sql("DESCRIBE DETAIL " + table("people")).select("properties").first().<String, String>getJavaMap(0))
          .as("the table has deletion vectors on").containsEntry("delta.enableDeletionVectors", "true");
      Map<String, String> lateMerge = spark.sql("DESCRIBE HISTORY " + table("people"))
          .where("operation = 'MERGE'").orderBy(org.apache.spark.sql.functions.col("version").desc())
          .select("operationMetrics").first().getJavaMap(0);
      if (layout.equals("delta")) {
        assertThat(filesWithDeletionVectors("people")).as("a small table's replaced rows are rewritten").isZero();
        assertThat(Long.parseLong(lateMerge.get("numTargetFilesRemoved"))).isPositive();
        assertThat(lateMerge).containsEntry("numTargetDeletionVectorsAdded", "0");
      } else {
        assertThat(filesWithDeletionVectors("people")).as("replaced rows are marked by deletion vectors")
            .isPositive();
        assertThat(Long.parseLong(lateMerge.get("numTargetDeletionVectorsAdded"))).isPositive();
      }
      kernelReadsWhatSparkReads("people");
      return;
    }
    assertThat(formatVersion("people")).as("the table's format version (3 unless the entity says 2)")
        .isEqualTo(formatVersion);
    assertThat(deleteFileFormats("people")).as("replaced rows are marked by")
        .containsExactly(formatVersion == 3 ? "PUFFIN" : "PARQUET");
  }

  @org.junit.jupiter.api.Test
  void aCopyOnWriteLimitThatIsNotANumberFailsTheBatchInOneLineAndChangesNothing() throws Exception {
    use(TableFormat.DELTA);
    CdcMerge merge = merge("people", "");
    merge.apply(batch(change("c", 1, 100), change("c", 2, 110)), 0);
    spark.sql("ALTER TABLE " + table("people") + " SET TBLPROPERTIES ('" + DeltaSilverTable.COPY_ON_WRITE_BELOW
        + "' = '8 MiB')");
    Map<Long, String> before = state("people");
    long commits = snapshots("people");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> merge.apply(batch(change("u", 1, 200)), 1))
        .hasMessageContaining("people")
        .hasMessageEndingWith(": table property tributary.copy-on-write-below-bytes must be a number of bytes, not"
            + " '8 MiB'")
        .satisfies(failure -> assertThat(failure.getMessage()).doesNotContain("\n"));
    assertThat(snapshots("people")).as("nothing committed").isEqualTo(commits);
    assertThat(state("people")).isEqualTo(before);
  }

  @ParameterizedTest
  @EnumSource(TableFormat.class)
  void aTruncateClearsOlderRowsAndLaterArrivingOlderChangesStayCleared(TableFormat format) throws Exception {
    use(format);
    List<List<Row>> batches = List.of(
        List.of(change("c", 1, 100), change("c", 2, 110)),
        List.of(truncate(300), change("u", 1, 350), change("c", 5, 250)),
        List.of(change("c", 3, 200), change("u", 2, 290), change("c", 4, 400)));
    CdcMerge incremental = merge("incremental", "");
    for (int i = 0; i < batches.size(); i++) {
      incremental.apply(batch(batches.get(i).toArray(new Row[0])), i);
    }
    assertThat(state("incremental")).isEqualTo(Map.of(1L, "1@350/live", 2L, "null/deleted-t", 3L, "null/deleted-t",
        4L, "4@400/live", 5L, "null/deleted-t"));

    CdcMerge rebuild = merge("rebuild", "");
    rebuild.apply(batch(batches.stream().flatMap(List::stream).toArray(Row[]::new)), 0);
    assertThat(content("rebuild")).isEqualTo(content("incremental"));
  }

  @org.junit.jupiter.api.Test
  void aDeltaTableChangedByAnotherWriterBetweenBatchesLosesAndDoublesNothing() throws Exception {
    use(TableFormat.DELTA);
    CdcMerge merge = merge("people", "");
    merge.apply(batch(change("c", 1, 100), change("c", 2, 110), change("c", 3, 120)), 0);
    // Another writer between two batches: a compaction, and a user's own commit to the table.
    spark.sql("OPTIMIZE " + table("people")).collectAsList();
    spark.sql("UPDATE " + table("people") + " SET name = 'by hand' WHERE id = 3");
    Dataset<Row> next = batch(change("u", 1, 200), change("c", 4, 210), change("u", 3, 90));
    merge.apply(next, 1);
    Map<Long, String> expected = Map.of(1L, "1@200/live", 2L, "2@110/live", 3L, "by hand/live", 4L, "4@210/live");
    assertThat(state("people")).as("the older change to 3 loses to the row as it is").isEqualTo(expected);
    long commits = snapshots("people");
    merge.apply(next, 1);
    assertThat(snapshots("people")).as("the replay is skipped after the other writer's commits too")
        .isEqualTo(commits);
    assertThat(state("people")).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"iceberg-v3", "iceberg-v2", "delta"})
  void hardDeletesRemoveTheRow(String layout) throws Exception {
    int formatVersion = use(layout);
    CdcMerge merge = merge("people", "delete-mode = hard" + (formatVersion == 2 ? ", format-version = 2" : ""));
    merge.apply(batch(change("c", 1, 100), change("c", 2, 110), change("d", 2, 120), change("c", 3, 130)), 0);
    assertThat(state("people")).isEqualTo(Map.of(1L, "1@100/live", 3L, "3@130/live"));
    merge.apply(batch(change("d", 1, 200), change("u", 3, 125), truncate(300), change("c", 4, 310)), 1);
    assertThat(state("people")).isEqualTo(Map.of(4L, "4@310/live"));
    merge.apply(batch(change("u", 3, 250), change("c", 5, 400)), 2);
    assertThat(state("people")).as("changes older than the truncate stay away")
        .isEqualTo(Map.of(4L, "4@310/live", 5L, "5@400/live"));
  }

  @ParameterizedTest
  @EnumSource(TableFormat.class)
  void historyKeepsEveryVersionWithItsValidityWhateverTheArrivalOrder(TableFormat format) throws Exception {
    use(format);
    List<List<Row>> batches = List.of(
        List.of(change("c", 1, 100), change("u", 1, 300), change("c", 2, 150)),
        List.of(change("u", 1, 200), change("d", 1, 400), change("u", 1, 200)),
        List.of(truncate(500), change("c", 3, 600)),
        List.of(change("u", 1, 450), change("u", 3, 550)),
        // Key 9 is beyond every key the table holds: its versions are appended, the truncate's one included.
        List.of(change("u", 9, 700), change("c", 9, 450)));
    // Batches whose keys no file holds (into the empty table, key 9) are appended; the others merge.
    List<Integer> mergesPerBatch = List.of(0, 1, 1, 1, 0);
    CdcMerge merge = merge("history", "history = scd2");
    try (MergeCount merges = new MergeCount(spark)) {
      for (int i = 0; i < batches.size(); i++) {
        merge.apply(batch(batches.get(i).toArray(new Row[0])), i);
        assertThat(merges.since()).as("MERGE statements of batch " + i).isEqualTo(mergesPerBatch.get(i));
      }
    }
    // id, name, op, valid from and to (source seconds), current
    List<String> expected = List.of(
        "1 1@100 c 100-200", "1 1@200 u 200-300", "1 1@300 u 300-400", "1 1@400 d 400-450", "1 1@450 u 450-500",
        "1 null t 500- current",
        "2 2@150 c 150-500", "2 null t 500- current",
        "3 3@550 u 550-600", "3 3@600 c 600- current",
        "9 9@450 c 450-500", "9 null t 500-700", "9 9@700 u 700- current");
    assertThat(history("history")).isEqualTo(expected);

    long snapshots = snapshots("history");
    int last = batches.size() - 1;
    merge.apply(batch(batches.get(last).toArray(new Row[0])), last);
    assertThat(snapshots("history")).as("replay skipped").isEqualTo(snapshots);
    CdcMerge again = merge("history", "history = scd2");
    spark.sparkContext().setLocalProperty("sql.streaming.queryId", "another-stream");
    again.apply(batch(batches.get(1).toArray(new Row[0])), 0);
    assertThat(history("history")).as("applying old changes again recomputes the same timeline").isEqualTo(expected);

    CdcMerge rebuild = merge("rebuilt", "history = scd2");
    rebuild.apply(batch(batches.stream().flatMap(List::stream).toArray(Row[]::new)), 0);
    assertThat(history("rebuilt")).isEqualTo(expected);
  }

  private List<String> history(String table) {
    List<String> rows = new ArrayList<>();
    for (Row row : spark.sql("SELECT id, name, _op, unix_seconds(_valid_from), unix_seconds(_valid_to), _is_current"
        + " FROM " + table(table) + " ORDER BY id, _seq").collectAsList()) {
      rows.add(row.getLong(0) + " " + row.getString(1) + " " + row.getString(2) + " " + row.getLong(3) + "-"
          + (row.isNullAt(4) ? "" : row.getLong(4)) + (row.getBoolean(5) ? " current" : ""));
    }
    return rows;
  }

  @ParameterizedTest
  @EnumSource(TableFormat.class)
  void evolveAddsNewFieldsNestedOnesTooAndWidensInts(TableFormat format) throws Exception {
    use(format);
    CdcMerge merge = merge("people", "id BIGINT, name STRING, age INT, address STRUCT<city: STRING>", "");
    merge.apply(batch(change("c", 1, 100, "\"name\":\"a\",\"age\":30,\"address\":{\"city\":\"Ghent\"}")), 0);
    merge.apply(batch(
        change("u", 1, 200, "\"name\":\"a\",\"age\":3000000000,\"mood\":\"calm\","
            + "\"address\":{\"city\":\"Ghent\",\"zip\":\"9000\"},\"tags\":{\"vip\":true}"),
        change("c", 2, 210, "\"name\":\"b\",\"age\":20,\"mood\":null")), 1);
    assertThat(spark.table(table("people")).schema().toDDL()).startsWith("id BIGINT,name STRING,"
        + "age BIGINT,address STRUCT<city: STRING, zip: STRING>,");
    assertThat(spark.table(table("people")).schema().fieldNames()).contains("mood", "tags");
    assertThat(spark.sql("SELECT id, age, mood, address.zip, tags.vip FROM " + table("people") + " ORDER BY id")
        .collectAsList().stream().map(Row::toString))
        .containsExactly("[1,3000000000,calm,9000,true]", "[2,20,null,null,null]");
    assertThat(spark.table(table("quarantine")).count()).isZero();
    kernelReadsWhatSparkReads("people");
  }

  @ParameterizedTest
  @EnumSource(TableFormat.class)
  void ignoreDropsNewFieldsAndQuarantineRejectsTheirRecords(TableFormat format) throws Exception {
    use(format);
    Row[] changes = {change("c", 1, 100, "\"name\":\"a\",\"mood\":\"calm\""),
        change("c", 2, 110, "\"name\":\"b\""), change("c", 3, 120, "\"name\":\"c\",\"age\":3000000000")};
    CdcMerge ignore = merge("ignoring", "id BIGINT, name STRING, age INT", "schema-evolution = ignore");
    ignore.apply(batch(changes), 0);
    assertThat(spark.table(table("ignoring")).schema().fieldNames()).doesNotContain("mood");
    assertThat(state("ignoring")).isEqualTo(Map.of(1L, "a/live", 2L, "b/live"));

    CdcMerge quarantine = merge("strict", "id BIGINT, name STRING, age INT", "schema-evolution = quarantine");
    spark.sparkContext().setLocalProperty("sql.streaming.queryId", "strict-stream");
    quarantine.apply(batch(changes), 0);
    assertThat(state("strict")).isEqualTo(Map.of(2L, "b/live"));
    assertThat(spark.sql("SELECT entity, offset, stage, reason FROM " + table("quarantine") + " ORDER BY entity,"
        + " offset").collectAsList().stream().map(Row::toString)).containsExactly(
            "[ignoring,2,schema,column age: '3000000000' is not a int]",
            "[strict,0,schema,unknown field mood (schema-evolution = quarantine)]",
            "[strict,2,schema,column age: '3000000000' is not a int]");
  }

  /** A record with this value (null: a Kafka tombstone). */
  private Row record(String value) {
    Timestamp now = new Timestamp(System.currentTimeMillis());
    return RowFactory.create("t", 0, offset++, now, null, value == null ? null : value.getBytes(UTF_8), null, now);
  }

  private long rows(String table) {
    return spark.table(table(table)).count();
  }

  @ParameterizedTest
  @EnumSource(TableFormat.class)
  void aMisconfigurationThatQuarantinesTheWholeBatchFailsItAndChangesNothing(TableFormat format) throws Exception {
    use(format);
    // The event's version field is "seq"; the config names "seqq".
    CdcMerge misspelt = merge("events", "decoder = json, sequence = [seqq]");
    List<Row> events = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      events.add(record("{\"id\":" + i + ",\"name\":\"n" + i + "\",\"seq\":" + i + "}"));
    }
    String[] columns = spark.table(table("events")).schema().fieldNames();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> misspelt.apply(batch(events.toArray(new Row[0])), 0))
        .isInstanceOf(CdcMerge.QuarantineShareExceeded.class)
        .hasMessageStartingWith("silver-events batch 0: 30 of 30 records (100%) go to quarantine for one reason:"
            + " 'missing sequence seqq', more than tributary.silver.entities.events.max-quarantine-ratio = 0.9");
    assertThat(rows("events")).isZero();
    assertThat(spark.table(table("quarantine")).count()).as("nothing committed").isZero();
    assertThat(spark.table(table("events")).schema().fieldNames()).isEqualTo(columns);

    // Let through on purpose: quarantined, each with its reason, and still no column from a rejected record.
    CdcMerge allowed = merge("events", "decoder = json, sequence = [seqq], max-quarantine-ratio = 1");
    allowed.apply(batch(events.toArray(new Row[0])), 0);
    assertThat(spark.sql("SELECT DISTINCT reason FROM " + table("quarantine")).collectAsList())
        .extracting(row -> row.getString(0)).containsExactly("missing sequence seqq");
    assertThat(spark.table(table("quarantine")).count()).isEqualTo(30);
    assertThat(spark.table(table("events")).schema().fieldNames()).isEqualTo(columns);
  }

  @ParameterizedTest
  @EnumSource(TableFormat.class)
  void recordsOfTheWrongDecoderAddNoColumnsAndTombstonesOfJsonEntitiesChangeNothing(TableFormat format) throws Exception {
    use(format);
    // Debezium envelopes read as plain JSON events: no key column at the top, so nothing to learn a schema from.
    CdcMerge wrong = merge("wrong", "decoder = json, sequence = [], max-quarantine-ratio = 1");
    String[] columns = spark.table(table("wrong")).schema().fieldNames();
    wrong.apply(batch(change("c", 1, 100), change("c", 2, 110), record("{\"id\":3,\"name\":\"plain\"}"),
        record(null)), 0);
    assertThat(spark.table(table("wrong")).schema().fieldNames()).isEqualTo(columns);
    assertThat(spark.sql("SELECT reason FROM " + table("quarantine")).collectAsList())
        .extracting(row -> row.getString(0)).containsExactly("missing key column id", "missing key column id");
    assertThat(state("wrong")).as("the tombstone deleted nothing").isEqualTo(Map.of(3L, "plain/live"));
  }
}
