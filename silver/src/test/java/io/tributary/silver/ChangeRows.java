package io.tributary.silver;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/** Changes of a table keyed by a BIGINT {@code k} with one value column {@code v}, as a merge receives them. */
final class ChangeRows {
  private ChangeRows() {}

  /**
   * Changes setting v to {@code value} for {@code keys}, at sequence {@code seq} and one higher per key, held as rows
   * rather than written as literals: a stream's batches are data, and literals of other values would be other code
   * on the changes' side.
   */
  static Dataset<Row> numbered(SparkSession spark, int seq, String value, long... keys) {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < keys.length; i++) {
      rows.add(RowFactory.create(keys[i], value, (long) seq + i));
    }
    SequenceBytes.register(spark);
    return spark.createDataFrame(rows, StructType.fromDDL("k BIGINT, v STRING, seq BIGINT"))
        .selectExpr("k", "v", "'u' AS _op", "array(seq) AS _seq", "0L AS _ts_ms", "false AS _is_deleted",
            "'t' AS _source_topic", "0 AS _source_partition", "seq AS _source_offset",
            "current_timestamp() AS _updated_at")
        .selectExpr("*", SequenceBytes.of("_seq") + " AS " + SequenceBytes.COLUMN);
  }
}
