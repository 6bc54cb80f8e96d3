package io.tributary.common.lakehouse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.io.nativeio.NativeIO;

/**
 * Hadoop's local file system ({@code file:} paths: the local warehouse and checkpoints) without a process per file.
 * Without Hadoop's native library, which neither Spark's jars nor Maven carry, Hadoop sets the permission of every
 * file it creates by running {@code chmod}, and looks for a symbolic link before every rename of a checkpoint file
 * by running {@code readlink}: measured here, a process of about 10 ms of CPU and 20 ms of wall time each, a dozen a
 * second in a streaming test, in the commit path of every micro-batch (each Iceberg metadata, manifest and data file,
 * each checkpoint file). This does both in Java instead; files, permissions and statuses come out the same. With the
 * native library loaded, Hadoop's own calls are used.
 */
public final class LocalDiskFileSystem extends LocalFileSystem {
  public LocalDiskFileSystem() {
    super(new Raw());
  }

  /** The raw (unchecksummed) file system underneath, also what {@link LocalDiskFs} delegates to. */
  static final class Raw extends RawLocalFileSystem {
    @Override
    public void setPermission(Path path, FsPermission permission) throws IOException {
      // Java cannot set the sticky bit: a permission with it goes the way Hadoop goes.
      if (NativeIO.isAvailable() || permission.getStickyBit()) {
        super.setPermission(path, permission);
        return;
      }
      Files.setPosixFilePermissions(pathToFile(path).toPath(), PosixFilePermissions.fromString(permission.toString()));
    }

    @Override
    public FileStatus getFileLinkStatus(Path path) throws IOException {
      // A path that is no link has the status of its file; only a link needs Hadoop's way of reading its target.
      if (NativeIO.isAvailable() || Files.isSymbolicLink(pathToFile(path).toPath())) {
        return super.getFileLinkStatus(path);
      }
      return getFileStatus(path);
    }
  }
}
