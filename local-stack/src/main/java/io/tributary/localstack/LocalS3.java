package io.tributary.localstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * An S3 endpoint on this machine: S3Proxy ({@code org.gaul.s3proxy.Main}) in a JVM of its own, on a free 127.0.0.1
 * port, keeping each bucket as a folder under {@code home/buckets} (its filesystem backend) and checking AWS
 * signatures against one access key. Clients use path-style addressing ({@code http://127.0.0.1:PORT/bucket/key}).
 * Its classpath comes from the {@code tributary-s3proxy-runtime} module.
 */
public final class LocalS3 implements AutoCloseable {
  private static final String CLASSPATH_RESOURCE = "/tributary/s3proxy.classpath";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
  /** Credentials of this local endpoint only (S3Proxy checks every request's signature against them). */
  public static final String ACCESS_KEY = "tributary-local";
  public static final String SECRET_KEY = "tributary-local-secret";
  public static final String REGION = "us-east-1";

  private final Path home;
  private final Process process;
  private final int port;

  private LocalS3(Path home, Process process, int port) {
    this.home = home;
    this.process = process;
    this.port = port;
  }

  /** Starts the endpoint with the given buckets (empty). */
  public static LocalS3 start(Path home, List<String> buckets) {
    try {
      Path data = Files.createDirectories(home.resolve("buckets"));
      for (String bucket : buckets) {
        Files.createDirectories(data.resolve(bucket));
      }
      int port;
      try (ServerSocket socket = new ServerSocket()) {
        socket.bind(new InetSocketAddress("127.0.0.1", 0));
        port = socket.getLocalPort();
      }
      Path properties = home.resolve("s3proxy.properties");
      Files.writeString(properties, String.join("\n",
          "s3proxy.endpoint=http://127.0.0.1:" + port,
          "s3proxy.authorization=aws-v2-or-v4",
          "s3proxy.identity=" + ACCESS_KEY,
          "s3proxy.credential=" + SECRET_KEY,
          "jclouds.provider=filesystem",
          "jclouds.filesystem.basedir=" + data.toAbsolutePath(),
          "") );
      ProcessBuilder builder = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
          .toString(), "-Xms64m", "-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", classpath(),
          "org.gaul.s3proxy.Main", "--properties", properties.toAbsolutePath().toString()))
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("s3proxy.log").toFile()));
      LocalS3 server = new LocalS3(home, builder.start(), port);
      Runtime.getRuntime().addShutdownHook(new Thread(server.process::destroyForcibly));
      server.awaitListening();
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start the local S3 endpoint in " + home, e);
    }
  }

  /** The endpoint's URL, for {@code s3.endpoint} (Iceberg) and {@code fs.s3a.endpoint} (Hadoop). */
  public String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  /** Where a bucket's objects are kept on the local disk, for a test that looks at them directly. */
  public Path bucketFolder(String bucket) {
    return home.resolve("buckets").resolve(bucket);
  }

  /**
   * The Spark settings that send {@code s3a://} (Hadoop's S3A: checkpoints, orphan listing) to this endpoint, and
   * Iceberg catalog properties that send {@code s3://} table files there through Iceberg's {@code S3FileIO}.
   */
  public Map<String, String> hadoopSettings() {
    return Map.of(
        "spark.hadoop.fs.s3a.endpoint", endpoint(),
        "spark.hadoop.fs.s3a.endpoint.region", REGION,
        "spark.hadoop.fs.s3a.path.style.access", "true",
        "spark.hadoop.fs.s3a.connection.ssl.enabled", "false",
        "spark.hadoop.fs.s3a.access.key", ACCESS_KEY,
        "spark.hadoop.fs.s3a.secret.key", SECRET_KEY,
        "spark.hadoop.fs.s3.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem");
  }

  /** Catalog properties for Iceberg's {@code S3FileIO} on this endpoint. */
  public Map<String, String> icebergCatalogProperties() {
    return Map.of(
        "io-impl", "org.apache.iceberg.aws.s3.S3FileIO",
        "s3.endpoint", endpoint(),
        "s3.path-style-access", "true",
        "s3.access-key-id", ACCESS_KEY,
        "s3.secret-access-key", SECRET_KEY,
        "client.region", REGION);
  }

  /** The last lines of the server's log. */
  public String logTail() {
    return LocalKafkaBroker.tail(home.resolve("s3proxy.log"));
  }

  @Override
  public void close() {
    ServerProcesses.stop(process);
  }

  private void awaitListening() {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("The S3 endpoint (S3Proxy) exited (" + process.exitValue() + "):\n"
            + logTail());
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
        return;
      } catch (IOException notYet) {
        ServerProcesses.pause(200, "the S3 endpoint");
      }
    }
    close();
    throw new IllegalStateException("The S3 endpoint (S3Proxy) did not listen within " + START_TIMEOUT.toSeconds()
        + " s:\n" + logTail());
  }

  private static String classpath() {
    return ServerProcesses.classpath(CLASSPATH_RESOURCE);
  }
}
