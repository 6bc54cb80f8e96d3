package io.tributary.common.config;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalFoldersTest {

  private static TributaryConfig config(String warehouse, String checkpoints) {
    return TributaryConfig.from(ConfigFactory.parseString("""
        tributary {
          catalog.warehouse = "%s"
          kafka.bootstrap-servers = "127.0.0.1:1"
          checkpoint-location = "%s"
          bronze.sources.orders { topic = "shop.orders", table = "bronze.orders" }
        }
        """.formatted(warehouse, checkpoints)));
  }

  @Test
  void foldersThatExistOrCanBeCreatedPass(@TempDir Path dir) throws Exception {
    Files.createDirectories(dir.resolve("warehouse"));
    assertThatCode(() -> LocalFolders.check(config(dir.resolve("warehouse").toString(),
        dir.resolve("not/yet/checkpoints").toString()))).doesNotThrowAnyException();
  }

  @Test
  void aWarehouseUnderAFileIsNamedOnceNotAgainForTheDeltaWarehouseInsideIt(@TempDir Path dir) throws Exception {
    Path blocker = Files.writeString(dir.resolve("blocker"), "a file where a folder should be");
    assertThatThrownBy(() -> LocalFolders.check(config(blocker.resolve("warehouse").toString(),
        dir.resolve("checkpoints").toString())))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessage("Invalid configuration: tributary.catalog.warehouse: cannot create the folder "
            + blocker.resolve("warehouse") + ": " + blocker + " is a file");
  }

  @Test
  void aCheckpointLocationThatIsAFileIsNamed(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("checkpoints"), "");
    assertThatThrownBy(() -> LocalFolders.check(config("file:" + dir.resolve("warehouse"), file.toString())))
        .hasMessage("Invalid configuration: tributary.checkpoint-location: " + file + " is a file, not a folder");
  }

  @Test
  void otherFileSystemsAreLeftToTheirClients() {
    assertThatCode(() -> LocalFolders.check(config("hdfs://nn/warehouse", "s3a://bucket/checkpoints")))
        .doesNotThrowAnyException();
  }
}
