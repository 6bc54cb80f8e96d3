package io.tributary.silver;

import java.util.Map;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;

/**
 * A table's properties as they were at a moment, from the metadata file that was current then. Properties are not
 * part of a snapshot, so a rollback (or a rebuild from a snapshot) takes Tributary's own state in them, such as the
 * remembered truncates, from here.
 */
final class PropertiesAsOf {
  private PropertiesAsOf() {}

  static Map<String, String> at(Table table, long millis) {
    if (!(table instanceof HasTableOperations operations)) {
      throw new IllegalStateException(table.name() + " does not expose its metadata files");
    }
    TableMetadata current = operations.operations().current();
    String file = null;
    for (TableMetadata.MetadataLogEntry entry : current.previousFiles()) {
      if (entry.timestampMillis() <= millis) {
        file = entry.file();
      }
    }
    if (file == null || current.lastUpdatedMillis() <= millis) {
      return current.properties();
    }
    return TableMetadataParser.read(table.io(), file).properties();
  }
}
