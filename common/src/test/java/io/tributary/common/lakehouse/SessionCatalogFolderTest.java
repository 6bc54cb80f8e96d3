package io.tributary.common.lakehouse;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import io.tributary.common.config.TributaryConfig;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Spark's session catalog folder goes next to local checkpoints, not into the working folder. */
class SessionCatalogFolderTest {

  private static TributaryConfig config(String checkpoints) {
    return TributaryConfig.from(ConfigFactory.parseString("""
        tributary {
          catalog.warehouse = "/tmp/tributary-test/warehouse"
          kafka.bootstrap-servers = "127.0.0.1:1"
          checkpoint-location = "%s"
          bronze.sources.orders { topic = "shop.orders", table = "bronze.orders" }
        }
        """.formatted(checkpoints)));
  }

  @Test
  void besideLocalCheckpointsAndSparksDefaultElsewhere() {
    assertThat(LakehouseSession.sessionCatalogFolder(config("/data/lake/checkpoints")))
        .contains(Path.of("/data/lake/spark-warehouse").toString());
    assertThat(LakehouseSession.sessionCatalogFolder(config("file:/data/lake/checkpoints")))
        .contains(Path.of("/data/lake/spark-warehouse").toString());
    assertThat(LakehouseSession.sessionCatalogFolder(config("s3a://bucket/checkpoints"))).isEmpty();
  }
}
