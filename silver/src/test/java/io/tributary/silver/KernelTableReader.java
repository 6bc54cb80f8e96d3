package io.tributary.silver;

import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.data.ScanStateRow;
import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.ByteType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.ShortType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.types.TimestampType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;

/**
 * Reads a Delta table the way an engine without Spark does: Delta Kernel's default engine (its own log replay,
 * Parquet reader and deletion-vector handling), on a plain Hadoop configuration. Each row comes back as a list of
 * plain values (numbers, strings, booleans, decimals, binary as hex; timestamps as microseconds, dates as days;
 * structs and arrays of plain values as nested lists), so that it compares with the same rendering of
 * Spark's rows ({@link #plain(org.apache.spark.sql.Row)}).
 */
final class KernelTableReader {
  private KernelTableReader() {}

  /** The column names of the table's latest version, as Kernel reads its schema. */
  static List<String> columns(String path) {
    Engine engine = DefaultEngine.create(new Configuration());
    return TableManager.loadSnapshot(path).build(engine).getSchema().fieldNames();
  }

  /** Every live row of the table's latest version. */
  static List<List<Object>> rows(String path) {
    Engine engine = DefaultEngine.create(new Configuration());
    Snapshot snapshot = TableManager.loadSnapshot(path).build(engine);
    Scan scan = snapshot.getScanBuilder().build();
    Row state = scan.getScanState(engine);
    StructType physical = ScanStateRow.getPhysicalDataReadSchema(state);
    List<List<Object>> rows = new ArrayList<>();
    try (CloseableIterator<FilteredColumnarBatch> files = scan.getScanFiles(engine)) {
      while (files.hasNext()) {
        try (CloseableIterator<Row> scanFiles = files.next().getRows()) {
          while (scanFiles.hasNext()) {
            Row scanFile = scanFiles.next();
            FileStatus file = InternalScanFileUtils.getAddFileStatus(scanFile);
            CloseableIterator<ColumnarBatch> data = engine.getParquetHandler().readParquetFiles(
                singleton(file), physical, Optional.empty()).map(FileReadResult::getData);
            // Applies the file's deletion vector (as a selection vector) and the logical schema.
            try (CloseableIterator<FilteredColumnarBatch> logical = Scan.transformPhysicalData(engine, state,
                scanFile, data)) {
              while (logical.hasNext()) {
                try (CloseableIterator<Row> selected = logical.next().getRows()) {
                  while (selected.hasNext()) {
                    rows.add(plain(selected.next()));
                  }
                }
              }
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + path + " with Delta Kernel", e);
    }
    return rows;
  }

  private static CloseableIterator<FileStatus> singleton(FileStatus file) {
    return new CloseableIterator<>() {
      private boolean done;

      @Override
      public boolean hasNext() {
        return !done;
      }

      @Override
      public FileStatus next() {
        done = true;
        return file;
      }

      @Override
      public void close() {}
    };
  }

  private static List<Object> plain(Row row) {
    List<Object> values = new ArrayList<>();
    StructType schema = row.getSchema();
    for (int i = 0; i < schema.length(); i++) {
      values.add(row.isNullAt(i) ? null : value(row, i, schema.at(i).getDataType()));
    }
    return values;
  }

  private static Object value(Row row, int i, DataType type) {
    if (type instanceof LongType || type instanceof TimestampType || type instanceof TimestampNTZType) {
      return row.getLong(i);
    } else if (type instanceof IntegerType || type instanceof DateType) {
      return (long) row.getInt(i);
    } else if (type instanceof ShortType) {
      return (long) row.getShort(i);
    } else if (type instanceof ByteType) {
      return (long) row.getByte(i);
    } else if (type instanceof StringType) {
      return row.getString(i);
    } else if (type instanceof BooleanType) {
      return row.getBoolean(i);
    } else if (type instanceof DecimalType) {
      return row.getDecimal(i);
    } else if (type instanceof DoubleType) {
      return row.getDouble(i);
    } else if (type instanceof BinaryType) {
      return java.util.HexFormat.of().formatHex(row.getBinary(i));
    } else if (type instanceof StructType) {
      return plain(row.getStruct(i));
    } else if (type instanceof ArrayType) {
      List<?> elements = io.delta.kernel.internal.util.VectorUtils.toJavaList(row.getArray(i));
      return new ArrayList<>(elements);
    }
    throw new IllegalArgumentException("KernelTableReader does not render " + type);
  }

  /** A Spark row in the same rendering as {@link #rows}. */
  static List<Object> plain(org.apache.spark.sql.Row row) {
    List<Object> values = new ArrayList<>();
    for (int i = 0; i < row.length(); i++) {
      values.add(sparkValue(row.get(i)));
    }
    return values;
  }

  private static Object sparkValue(Object value) {
    if (value == null || value instanceof String || value instanceof Boolean || value instanceof Double
        || value instanceof java.math.BigDecimal) {
      return value;
    } else if (value instanceof Number number) {
      return number.longValue();
    } else if (value instanceof byte[] bytes) {
      return java.util.HexFormat.of().formatHex(bytes);
    } else if (value instanceof Timestamp timestamp) {
      return timestamp.getTime() / 1000 * 1_000_000 + timestamp.getNanos() / 1000;
    } else if (value instanceof Instant instant) {
      return instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1000;
    } else if (value instanceof java.sql.Date date) {
      return date.toLocalDate().toEpochDay();
    } else if (value instanceof LocalDate date) {
      return date.toEpochDay();
    } else if (value instanceof org.apache.spark.sql.Row struct) {
      return plain(struct);
    } else if (value instanceof scala.collection.Seq<?> seq) {
      return new ArrayList<>(scala.jdk.javaapi.CollectionConverters.asJava(seq).stream()
          .map(KernelTableReader::sparkValue).toList());
    }
    throw new IllegalArgumentException("KernelTableReader does not render " + value.getClass());
  }
}
