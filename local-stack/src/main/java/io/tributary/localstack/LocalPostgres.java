package io.tributary.localstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of its own for tests and the local stack: a fresh cluster ({@code initdb}) in a folder of its
 * own, started on a free 127.0.0.1 port with logical decoding on ({@code wal_level = logical}, for Debezium's
 * {@code pgoutput}), trust authentication for local connections, UTC, and no fsync. The binaries are the newest under
 * {@code /usr/lib/postgresql/<version>/bin} (Debian's layout). PostgreSQL refuses to run as root: as root, the server
 * runs as the {@code postgres} user (which Debian's package creates), in a folder that user owns.
 */
public final class LocalPostgres implements AutoCloseable {
  private static final Path INSTALLATIONS = Path.of("/usr/lib/postgresql");

  private final Path bin;
  private final Path home;
  private final int port;

  private LocalPostgres(Path bin, Path home, int port) {
    this.bin = bin;
    this.home = home;
    this.port = port;
  }

  /** Creates and starts a new cluster; {@link #close()} stops it and deletes its folder. */
  public static LocalPostgres start() {
    Path bin = binaries();
    try {
      Path home = Files.createTempDirectory("tributary-postgres-");
      Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx------"));
      if (isRoot()) {
        run(List.of("chown", "postgres:postgres", home.toString()), home);
      }
      int port;
      try (ServerSocket socket = new ServerSocket()) {
        socket.bind(new InetSocketAddress("127.0.0.1", 0));
        port = socket.getLocalPort();
      }
      LocalPostgres server = new LocalPostgres(bin, home, port);
      server.asOwner(List.of(bin.resolve("initdb").toString(), "-D", server.data().toString(), "-U", "postgres",
          "--auth=trust", "-E", "UTF8", "--no-locale"));
      List<String> settings = List.of("listen_addresses = '127.0.0.1'", "port = " + port,
          "unix_socket_directories = '" + home + "'", "wal_level = logical", "max_wal_senders = 10",
          "max_replication_slots = 10", "timezone = 'UTC'", "fsync = off", "synchronous_commit = off",
          "full_page_writes = off");
      // Appending keeps the file's owner (root may write a file the postgres user owns).
      Files.write(server.data().resolve("postgresql.conf"), settings, java.nio.file.StandardOpenOption.APPEND);
      server.asOwner(List.of(bin.resolve("pg_ctl").toString(), "-D", server.data().toString(), "-l",
          home.resolve("server.log").toString(), "-w", "-t", "60", "start"));
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start a local PostgreSQL with " + bin, e);
    }
  }

  /** The JDBC URL of database {@code database} (user {@code postgres}, no password). */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  public int port() {
    return port;
  }

  /** The server's log, for a test that reports a failure. */
  public Path log() {
    return home.resolve("server.log");
  }

  private Path data() {
    return home.resolve("data");
  }

  @Override
  public void close() {
    try {
      asOwner(List.of(bin.resolve("pg_ctl").toString(), "-D", data().toString(), "-m", "fast", "-w", "stop"));
    } finally {
      try (Stream<Path> files = Files.walk(home)) {
        files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
      } catch (IOException e) {
        // A folder left in the temp directory is not worth failing a test for.
      }
    }
  }

  /** Runs {@code command} as the cluster's owner, failing with its output. */
  private void asOwner(List<String> command) {
    List<String> full = new ArrayList<>();
    if (isRoot()) {
      full.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    full.addAll(command);
    run(full, home);
  }

  private static void run(List<String> command, Path home) {
    try {
      Process process = new ProcessBuilder(command).directory(home.toFile()).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + command.get(0), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running " + command.get(0), e);
    }
  }

  private static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  private static Path binaries() {
    try (Stream<Path> versions = Files.list(INSTALLATIONS)) {
      return versions.map(version -> version.resolve("bin")).filter(bin -> Files.isExecutable(bin.resolve("initdb")))
          .max(Comparator.comparing(bin -> Integer.parseInt(bin.getParent().getFileName().toString()
              .replaceAll("\\D", "0")))).orElseThrow(() -> new IllegalStateException("no PostgreSQL under "
                  + INSTALLATIONS + " (install Debian's postgresql package)"));
    } catch (IOException e) {
      throw new IllegalStateException("no PostgreSQL under " + INSTALLATIONS + " (install Debian's postgresql"
          + " package): " + e.getMessage(), e);
    }
  }
}
