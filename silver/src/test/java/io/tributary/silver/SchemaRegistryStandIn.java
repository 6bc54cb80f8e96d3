package io.tributary.silver;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A STAND-IN for a Confluent schema registry, for tests: Confluent's registry is not served on this machine, so this
 * implements the documented subset of its REST API that a serializer and the decoder use, on a free 127.0.0.1 port.
 * {@code POST /subjects/{subject}/versions} registers a schema (the same text gets the same id), {@code GET
 * /schemas/ids/{id}} answers it or 404 with error code 40403, and with credentials set every request without them
 * gets 401 (error code 401). It serves HTTP or HTTPS, and can be stopped and started again on the same port, as
 * an outage. Public for bench-silver, which measures the Avro decoder against it.
 */
public final class SchemaRegistryStandIn implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern SCHEMA_BY_ID = Pattern.compile("(?:/apis/ccompat/v7)?/schemas/ids/(\\d+)");
  private static final Pattern REGISTER = Pattern.compile("(?:/apis/ccompat/v7)?/subjects/([^/]+)/versions");
  private static final Pattern CREATE_ARTIFACT = Pattern.compile("/apis/registry/v2/groups/([^/]+)/artifacts");

  private final Map<Integer, String> schemas = new ConcurrentHashMap<>();
  private final Map<String, Integer> ids = new ConcurrentHashMap<>();
  private final Map<Integer, AtomicInteger> lookups = new ConcurrentHashMap<>();
  private final Map<String, ConcurrentSkipListSet<Integer>> artifactVersions = new ConcurrentHashMap<>();
  private final AtomicInteger nextId = new AtomicInteger(1);
  private final String expectedAuthorization;
  private final javax.net.ssl.SSLContext tls;
  private volatile int port;
  private HttpServer server;

  /** Without credentials. */
  public SchemaRegistryStandIn() throws IOException {
    this(null, null);
  }

  /** Requiring basic auth with these credentials. */
  SchemaRegistryStandIn(String username, String password) throws IOException {
    this(username, password, null);
  }

  /** Over HTTPS with the key and certificate of this context, without credentials. */
  SchemaRegistryStandIn(javax.net.ssl.SSLContext tls) throws IOException {
    this(null, null, tls);
  }

  private SchemaRegistryStandIn(String username, String password, javax.net.ssl.SSLContext tls)
      throws IOException {
    this.expectedAuthorization = username == null ? null : "Basic " + Base64.getEncoder()
        .encodeToString((username + ":" + password).getBytes(StandardCharsets.UTF_8));
    this.tls = tls;
    start();
  }

  public String url() {
    return (tls == null ? "http" : "https") + "://127.0.0.1:" + port;
  }

  /** Registers a schema under a subject, as a serializer does; returns its id. */
  public int register(String schema) {
    return ids.computeIfAbsent(schema, text -> {
      int id = nextId.getAndIncrement();
      schemas.put(id, text);
      return id;
    });
  }

  /** How many times the schema of an id was asked for. */
  int lookups(int id) {
    return lookups.getOrDefault(id, new AtomicInteger()).get();
  }

  /** An outage: the port stops answering until {@link #start}. */
  synchronized void stop() {
    server.stop(0);
  }

  /** Starts answering (again, on the same port after {@link #stop}). */
  synchronized void start() throws IOException {
    if (tls == null) {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
    } else {
      HttpsServer https = HttpsServer.create(new InetSocketAddress("127.0.0.1", port), 0);
      https.setHttpsConfigurator(new HttpsConfigurator(tls));
      server = https;
    }
    server.createContext("/", this::handle);
    server.start();
    port = server.getAddress().getPort();
  }

  @Override
  public void close() {
    stop();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (expectedAuthorization != null
          && !expectedAuthorization.equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
        answer(exchange, 401, Map.of("error_code", 401, "message", "Unauthorized"));
        return;
      }
      String path = exchange.getRequestURI().getPath();
      Matcher byId = SCHEMA_BY_ID.matcher(path);
      Matcher register = REGISTER.matcher(path);
      Matcher createArtifact = CREATE_ARTIFACT.matcher(path);
      if ("GET".equals(exchange.getRequestMethod()) && byId.matches()) {
        int id = Integer.parseInt(byId.group(1));
        lookups.computeIfAbsent(id, key -> new AtomicInteger()).incrementAndGet();
        String schema = schemas.get(id);
        if (schema == null) {
          answer(exchange, 404, Map.of("error_code", 40403, "message", "Schema " + id + " not found"));
        } else {
          answer(exchange, 200, Map.of("schema", schema));
        }
      } else if ("POST".equals(exchange.getRequestMethod()) && register.matches()) {
        String schema = JSON.readTree(exchange.getRequestBody()).path("schema").asText();
        answer(exchange, 200, Map.of("id", register(schema)));
      } else if ("POST".equals(exchange.getRequestMethod()) && createArtifact.matches()) {
        answer(exchange, 200, artifact(createArtifact.group(1),
            exchange.getRequestHeaders().getFirst("X-Registry-ArtifactId"),
            exchange.getRequestHeaders().getFirst("X-Registry-ArtifactType"),
            new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
      } else {
        answer(exchange, 404, Map.of("error_code", 404, "message", "HTTP 404 Not Found"));
      }
    }
  }

  /** Apicurio's metadata of the artifact version that holds {@code schema}, registered if new. */
  private Map<String, Object> artifact(String group, String artifactId, String type, String schema) {
    int id = register(schema);
    ConcurrentSkipListSet<Integer> versions = artifactVersions.computeIfAbsent(group + "/" + artifactId,
        key -> new ConcurrentSkipListSet<>());
    versions.add(id);
    int version = versions.headSet(id).size() + 1; // ids grow with each new schema
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    return Map.of("groupId", group, "id", String.valueOf(artifactId), "type", type == null ? "AVRO" : type,
        "version", String.valueOf(version), "globalId", id, "contentId", id, "state", "ENABLED",
        "createdOn", now, "modifiedOn", now, "references", List.of());
  }

  private static void answer(HttpExchange exchange, int status, Map<String, Object> body) throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(body);
    exchange.getResponseHeaders().set("Content-Type", "application/vnd.schemaregistry.v1+json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
