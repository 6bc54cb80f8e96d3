package io.tributary.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import io.tributary.common.config.MaintenanceConfig.Layer;
import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Which operations apply to a table and which are due, from a real config and health figures; no Spark. */
class DueOperationsTest {
  private static final TributaryConfig CONFIG = TributaryConfig.from(ConfigFactory.parseString("""
      tributary {
        catalog { warehouse = "/tmp/wh" }
        kafka.bootstrap-servers = "127.0.0.1:1"
        checkpoint-location = "/tmp/cp"
        bronze.sources.customers { topic = "shop.customers", table = "bronze.customers" }
        silver.entities {
          customers { source = bronze.customers, key = [id], table = silver.customers, schema = "id BIGINT" }
          hard { source = bronze.customers, key = [id], table = silver.hard, delete-mode = hard, schema = "id BIGINT" }
          history { source = bronze.customers, key = [id], table = silver.history, history = scd2, schema = "id BIGINT" }
        }
        maintenance.defaults { min-input-files = 5, retain-last = 3 }
      }
      """));

  private static MaintainedTable table(String name, Layer layer, TableFormat format) {
    TableName tableName = TableName.parseText(name);
    Optional<SilverEntity> entity = CONFIG.silver().entityList().stream()
        .filter(candidate -> candidate.table().equals(tableName)).findFirst();
    return new MaintainedTable(tableName, layer, format, "lake." + name, Optional.empty(),
        CONFIG.maintenance().policyFor(tableName, layer), entity);
  }

  private static TableHealth health(long snapshots, long smallFiles, long deleteFiles) {
    return new TableHealth("t", TableFormat.ICEBERG, snapshots, 100, 1 << 20, smallFiles, deleteFiles, 0, List.of());
  }

  @Test
  void tombstonesArePurgedOnlyWhereDeletesLeaveThem() {
    assertThat(DueOperations.applicable(table("silver.customers", Layer.SILVER, TableFormat.ICEBERG)))
        .first().isEqualTo(Operation.PURGE_TOMBSTONES);
    for (String other : List.of("silver.hard", "silver.history", "bronze.customers")) {
      assertThat(DueOperations.applicable(table(other, Layer.SILVER, TableFormat.ICEBERG))).as(other)
          .doesNotContain(Operation.PURGE_TOMBSTONES)
          .containsExactly(Operation.REWRITE_DATA_FILES, Operation.REWRITE_POSITION_DELETES,
              Operation.REWRITE_MANIFESTS, Operation.EXPIRE_SNAPSHOTS, Operation.REMOVE_ORPHAN_FILES);
    }
    assertThat(DueOperations.applicable(table("bronze.customers", Layer.BRONZE, TableFormat.DELTA)))
        .containsExactly(Operation.OPTIMIZE, Operation.PURGE_DELETION_VECTORS, Operation.VACUUM);
    assertThat(DueOperations.applicable(table("silver.customers", Layer.SILVER, TableFormat.DELTA)))
        .containsExactly(Operation.PURGE_TOMBSTONES, Operation.OPTIMIZE, Operation.PURGE_DELETION_VECTORS,
            Operation.VACUUM);
  }

  @Test
  void compactionIsDueFromMinInputFilesSmallFilesOrAnyDeleteFile() {
    MaintainedTable table = table("bronze.customers", Layer.BRONZE, TableFormat.ICEBERG);
    assertThat(DueOperations.isDue(Operation.REWRITE_DATA_FILES, table, health(1, 4, 0), () -> 0)).isFalse();
    assertThat(DueOperations.isDue(Operation.REWRITE_DATA_FILES, table, health(1, 5, 0), () -> 0)).isTrue();
    assertThat(DueOperations.isDue(Operation.REWRITE_DATA_FILES, table, health(1, 0, 1), () -> 0)).isTrue();
    assertThat(DueOperations.isDue(Operation.OPTIMIZE, table, health(1, 5, 0), () -> 0)).isTrue();
    // On Delta, a file with a deletion vector is purged (rewritten alone), not a reason to compact.
    assertThat(DueOperations.isDue(Operation.OPTIMIZE, table, health(1, 0, 1), () -> 0)).isFalse();
    assertThat(DueOperations.isDue(Operation.PURGE_DELETION_VECTORS, table, health(1, 0, 0), () -> 0)).isFalse();
    assertThat(DueOperations.isDue(Operation.PURGE_DELETION_VECTORS, table, health(1, 0, 1), () -> 0)).isTrue();
    assertThat(DueOperations.isDue(Operation.REWRITE_POSITION_DELETES, table, health(1, 0, 1), () -> 0)).isFalse();
    assertThat(DueOperations.isDue(Operation.REWRITE_POSITION_DELETES, table, health(1, 0, 2), () -> 0)).isTrue();
  }

  @Test
  void expiryIsDueBeyondRetainLastAndManifestsAreCountedOnlyWhenAsked() {
    MaintainedTable table = table("bronze.customers", Layer.BRONZE, TableFormat.ICEBERG);
    assertThat(DueOperations.isDue(Operation.EXPIRE_SNAPSHOTS, table, health(3, 0, 0), () -> 0)).isFalse();
    assertThat(DueOperations.isDue(Operation.EXPIRE_SNAPSHOTS, table, health(4, 0, 0), () -> 0)).isTrue();

    AtomicInteger asked = new AtomicInteger();
    assertThat(DueOperations.isDue(Operation.EXPIRE_SNAPSHOTS, table, health(4, 0, 0), () -> asked.incrementAndGet()))
        .isTrue();
    assertThat(asked).hasValue(0);
    assertThat(DueOperations.isDue(Operation.REWRITE_MANIFESTS, table, health(1, 0, 0), () -> 4)).isFalse();
    assertThat(DueOperations.isDue(Operation.REWRITE_MANIFESTS, table, health(1, 0, 0), () -> 5)).isTrue();
  }

  @Test
  void onlyPurgeAndCompactionChangeWhatIsDueNext() {
    assertThat(List.of(Operation.values())).filteredOn(DueOperations::changesHealth)
        .containsExactly(Operation.PURGE_TOMBSTONES, Operation.REWRITE_DATA_FILES, Operation.OPTIMIZE);
  }
}
