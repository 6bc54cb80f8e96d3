package io.tributary.common.lakehouse;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The local file system without processes writes, renames and reports files as Hadoop's own does. */
class LocalDiskFileSystemTest {

  @Test
  void createsFilesWithTheSamePermissionsAndContentAsHadoopsLocalFileSystem(@TempDir java.nio.file.Path dir)
      throws IOException {
    FsPermission permission = new FsPermission((short) 0640);
    try (LocalFileSystem hadoops = new LocalFileSystem(); LocalDiskFileSystem ours = new LocalDiskFileSystem()) {
      hadoops.initialize(dir.toUri(), new Configuration(false));
      ours.initialize(dir.toUri(), new Configuration(false));
      write(hadoops, new Path(dir.resolve("hadoop/a.json").toUri()), permission);
      write(ours, new Path(dir.resolve("ours/a.json").toUri()), permission);
      for (String file : new String[] {"a.json", ".a.json.crc"}) {
        assertThat(posix(dir.resolve("ours").resolve(file))).as(file)
            .isEqualTo(posix(dir.resolve("hadoop").resolve(file)));
        assertThat(Files.readAllBytes(dir.resolve("ours").resolve(file))).as(file)
            .isEqualTo(Files.readAllBytes(dir.resolve("hadoop").resolve(file)));
      }
      assertThat(posix(dir.resolve("ours/a.json"))).isEqualTo("rw-r-----");
      ours.setPermission(new Path(dir.resolve("ours/a.json").toUri()), new FsPermission((short) 0754));
      assertThat(posix(dir.resolve("ours/a.json"))).isEqualTo("rwxr-xr--");
      assertThat(ours.getFileStatus(new Path(dir.resolve("ours/a.json").toUri())).getPermission())
          .isEqualTo(new FsPermission((short) 0754));
    }
  }

  @Test
  void reportsFilesAndLinksAsHadoopsLocalFileSystemDoes(@TempDir java.nio.file.Path dir) throws IOException {
    java.nio.file.Path file = Files.writeString(dir.resolve("target.txt"), "content");
    java.nio.file.Path link = Files.createSymbolicLink(dir.resolve("link.txt"), file);
    try (LocalFileSystem hadoops = new LocalFileSystem(); LocalDiskFileSystem ours = new LocalDiskFileSystem()) {
      hadoops.initialize(dir.toUri(), new Configuration(false));
      ours.initialize(dir.toUri(), new Configuration(false));
      for (java.nio.file.Path path : new java.nio.file.Path[] {file, link}) {
        FileStatus expected = hadoops.getFileLinkStatus(new Path(path.toUri()));
        FileStatus actual = ours.getFileLinkStatus(new Path(path.toUri()));
        assertThat(actual.isSymlink()).as("%s is a link", path).isEqualTo(expected.isSymlink());
        assertThat(actual.isFile()).as("%s is a file", path).isEqualTo(expected.isFile());
        assertThat(actual.getLen()).as("%s length", path).isEqualTo(expected.getLen());
        assertThat(actual.getPath()).as("%s path", path).isEqualTo(expected.getPath());
        assertThat(actual.getModificationTime()).as("%s time", path).isEqualTo(expected.getModificationTime());
      }
      assertThat(ours.getFileLinkStatus(new Path(file.toUri())).getLen()).isEqualTo(7);
    }
  }

  @Test
  void streamingCheckpointsWriteAndRenameThroughFileContext(@TempDir java.nio.file.Path dir) throws Exception {
    Configuration conf = new Configuration(false);
    LakehouseSession.staticSettings().forEach((key, value) -> {
      if (key.startsWith("spark.hadoop.")) {
        conf.set(key.substring("spark.hadoop.".length()), value);
      }
    });
    FileContext files = FileContext.getFileContext(dir.toUri(), conf);
    assertThat(files.getDefaultFileSystem()).isInstanceOf(LocalDiskFs.class);
    assertThat(FileSystem.newInstance(dir.toUri(), conf)).isInstanceOf(LocalDiskFileSystem.class);
    Path temp = new Path(dir.resolve(".0.tmp").toUri());
    try (FSDataOutputStream out = files.create(temp, EnumSet.of(CreateFlag.CREATE, CreateFlag.OVERWRITE),
        Options.CreateOpts.checksumParam(Options.ChecksumOpt.createDisabled()))) {
      out.write("v1\n{\"batchWatermarkMs\":0}".getBytes(StandardCharsets.UTF_8));
    }
    files.rename(temp, new Path(dir.resolve("0").toUri()), Options.Rename.NONE);
    assertThat(Files.readString(dir.resolve("0"))).isEqualTo("v1\n{\"batchWatermarkMs\":0}");
    assertThat(dir.resolve(".0.tmp")).doesNotExist();
  }

  private static void write(FileSystem fs, Path path, FsPermission permission) throws IOException {
    try (FSDataOutputStream out = fs.create(path, permission, true, 4096, (short) 1, 1 << 20, null)) {
      out.write("{\"format-version\":2}".getBytes(StandardCharsets.UTF_8));
    }
  }

  private static String posix(java.nio.file.Path file) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(file));
  }
}
