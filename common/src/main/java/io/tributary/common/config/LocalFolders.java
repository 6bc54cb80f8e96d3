package io.tributary.common.config;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The config's folders on the local file system (warehouse, Delta warehouse, checkpoints), checked before a job
 * starts: a path under a file, or a folder it may not write in, would otherwise surface as a stack trace deep inside
 * Spark's first write. Locations on other file systems (s3a://, hdfs://, ...) are left to their clients.
 */
public final class LocalFolders {
  private LocalFolders() {}

  /** Throws {@link InvalidConfigException} naming each key whose folder cannot be created or written. */
  public static void check(TributaryConfig config) {
    List<String> problems = new ArrayList<>();
    of(config).forEach((key, folder) -> {
      Path existing = nearestExisting(folder);
      if (!Files.isDirectory(existing)) {
        problems.add(key + ": " + (existing.equals(folder) ? folder + " is a file, not a folder"
            : "cannot create the folder " + folder + ": " + existing + " is a file"));
      } else if (!Files.isWritable(existing)) {
        problems.add(key + ": " + (existing.equals(folder) ? "cannot write in " + folder
            : "cannot create the folder " + folder + ": cannot write in " + existing));
      }
    });
    if (!problems.isEmpty()) {
      throw new InvalidConfigException(problems);
    }
  }

  /**
   * The config's folders on the local file system, by the key that sets them; the Delta warehouse only when it is
   * set apart from its default inside the warehouse.
   */
  public static Map<String, Path> of(TributaryConfig config) {
    Map<String, Path> folders = new LinkedHashMap<>();
    put(folders, "tributary.catalog.warehouse", config.catalog().warehouse());
    String warehouse = config.catalog().warehouse();
    if (warehouse == null || !config.catalog().deltaWarehouse().equals(warehouse + "/_delta")) {
      put(folders, "tributary.catalog.delta-warehouse", config.catalog().deltaWarehouse());
    }
    put(folders, "tributary.checkpoint-location", config.checkpointLocation());
    return folders;
  }

  private static void put(Map<String, Path> folders, String key, String location) {
    Path path = localPath(location);
    if (path != null) {
      folders.put(key, path);
    }
  }

  /** The folder itself if it exists, else its nearest ancestor that does: where it would be created. */
  public static Path nearestExisting(Path folder) {
    Path existing = folder;
    while (existing.getParent() != null && !Files.exists(existing)) {
      existing = existing.getParent();
    }
    return existing;
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
