package io.tributary.common.lakehouse;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.testing.SharedSpark;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** What Tributary records with Delta commits, read from the log's files as from Delta's history. */
@ExtendWith(SharedSpark.class)
class DeltaCommitMetadataTest {

  @Test
  void theCommitFilesTellWhatTheHistoryTells(SparkSession spark, @TempDir Path dir) {
    String path = dir.resolve("table").toString();
    assertThat(DeltaCommitMetadata.recorded(spark, path, 10, "end")).as("no table yet").isEmpty();
    for (int batch = 0; batch < 4; batch++) {
      var rows = spark.range(batch * 10L, batch * 10L + 10).write().format("delta").mode("append");
      if (batch != 2) { // batch 2 is another writer's: nothing recorded
        rows = rows.option("userMetadata", DeltaCommitMetadata.json(Map.of("end", "e" + batch, "other", "x")));
      }
      rows.save(path);
    }
    spark.sql("DELETE FROM delta.`" + path + "` WHERE id < 5");

    List<DeltaCommitMetadata.Commit> fromFiles = DeltaCommitMetadata.recorded(spark, path, 3, "end");
    assertThat(fromFiles).extracting(DeltaCommitMetadata.Commit::version).containsExactly(4L, 3L, 2L);
    assertThat(fromFiles).extracting(DeltaCommitMetadata.Commit::operation).containsExactly("DELETE", "WRITE", "WRITE");
    assertThat(fromFiles).extracting(commit -> commit.recorded().get("end")).containsExactly(null, "e3", null);
    List<DeltaCommitMetadata.Commit> fromHistory = DeltaCommitMetadata.history(spark, path, 3, "end");
    assertThat(fromFiles).extracting(DeltaCommitMetadata.Commit::version, DeltaCommitMetadata.Commit::operation,
        DeltaCommitMetadata.Commit::parameters, DeltaCommitMetadata.Commit::recorded)
        .isEqualTo(fromHistory.stream().map(commit -> org.assertj.core.groups.Tuple.tuple(commit.version(),
            commit.operation(), commit.parameters(), commit.recorded())).toList());
    assertThat(DeltaCommitMetadata.recorded(spark, path, 100, "end")).hasSize(5)
        .extracting(commit -> commit.recorded().get("end")).containsExactly(null, "e3", null, "e1", "e0");
  }
}
