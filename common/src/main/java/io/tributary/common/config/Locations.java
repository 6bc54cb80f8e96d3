package io.tributary.common.config;

import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Local paths in config are relative to a base folder (the working directory, unless the caller says otherwise);
 * URIs (s3a://, hdfs://, file:) stay as they are.
 */
final class Locations {
  private static final Pattern HAS_SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:.*");

  private Locations() {}

  static String resolve(String location, Path baseDir) {
    if (location == null || HAS_SCHEME.matcher(location).matches()) {
      return location;
    }
    return baseDir.toAbsolutePath().resolve(location).normalize().toString();
  }
}
