package io.tributary.common.config;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The config's folders on the local file system (warehouse, Delta warehouse, checkpoints), checked before a job
 * starts: a path under a file, or a folder it may not write in, would otherwise surface as a stack trace deep inside
 * Spark's first write. Locations on other file systems (s3a://, hdfs://, ...) are left to their clients.
 */
public final class LocalFolders {
  private LocalFolders() {}

  /** Throws {@link InvalidConfigException} naming each key whose folder cannot be created or written. */
  public static void check(TributaryConfig config) {
    Map<String, String> locations = new LinkedHashMap<>();
    locations.put("tributary.catalog.warehouse", config.catalog().warehouse());
    locations.put("tributary.catalog.delta-warehouse", config.catalog().deltaWarehouse());
    locations.put("tributary.checkpoint-location", config.checkpointLocation());
    List<String> problems = new ArrayList<>();
    // The Delta warehouse defaults to a folder of the warehouse: one problem with both is reported once.
    Set<Path> failed = new HashSet<>();
    locations.forEach((key, location) -> {
      Path folder = localPath(location);
      if (folder == null) {
        return;
      }
      Path existing = folder;
      while (existing.getParent() != null && !Files.exists(existing)) {
        existing = existing.getParent();
      }
      if (failed.contains(existing)) {
        return;
      }
      if (!Files.isDirectory(existing)) {
        failed.add(existing);
        problems.add(key + ": " + (existing.equals(folder) ? folder + " is a file, not a folder"
            : "cannot create the folder " + folder + ": " + existing + " is a file"));
      } else if (!Files.isWritable(existing)) {
        failed.add(existing);
        problems.add(key + ": " + (existing.equals(folder) ? "cannot write in " + folder
            : "cannot create the folder " + folder + ": cannot write in " + existing));
      }
    });
    if (!problems.isEmpty()) {
      throw new InvalidConfigException(problems);
    }
  }

  /** The path of a location without a scheme or with {@code file:}; null for any other file system. */
  static Path localPath(String location) {
    if (location == null || location.isBlank()) {
      return null;
    }
    if (location.startsWith("file:")) {
      return Path.of(URI.create(location)).toAbsolutePath().normalize();
    }
    if (location.matches("^[A-Za-z][A-Za-z0-9+.-]*:.*")) {
      return null;
    }
    return Path.of(location).toAbsolutePath().normalize();
  }
}
