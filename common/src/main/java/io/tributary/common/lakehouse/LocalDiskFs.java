package io.tributary.common.lakehouse;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFs;
import org.apache.hadoop.fs.DelegateToFileSystem;
import org.apache.hadoop.fs.FsServerDefaults;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.local.LocalConfigKeys;

/**
 * {@link LocalDiskFileSystem} for Hadoop's {@code FileContext} API, which Spark's streaming checkpoints write through
 * (its own setting, {@code fs.AbstractFileSystem.file.impl}): checksummed as Hadoop's {@code LocalFs} is.
 */
public final class LocalDiskFs extends ChecksumFs {
  public LocalDiskFs(URI uri, Configuration conf) throws IOException, URISyntaxException {
    super(new Raw(uri, conf));
  }

  /** The unchecksummed layer, as Hadoop's {@code RawLocalFs}, on {@link LocalDiskFileSystem.Raw}. */
  static final class Raw extends DelegateToFileSystem {
    Raw(URI uri, Configuration conf) throws IOException, URISyntaxException {
      super(uri, new LocalDiskFileSystem.Raw(), conf, "file", false);
    }

    @Override
    public int getUriDefaultPort() {
      return -1; // no default port for file:///
    }

    @Override
    @Deprecated
    public FsServerDefaults getServerDefaults() throws IOException {
      return LocalConfigKeys.getServerDefaults();
    }

    @Override
    public FsServerDefaults getServerDefaults(Path path) throws IOException {
      return LocalConfigKeys.getServerDefaults();
    }

    @Override
    public boolean isValidName(String src) {
      return true; // any local path is valid
    }
  }
}
