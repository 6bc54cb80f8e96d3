package io.tributary.silver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tributary.common.config.SchemaRegistryConfig;
import io.tributary.common.lakehouse.DependencyUnavailableException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Fetches Avro writer schemas by id from a Confluent-compatible schema registry ({@code GET /schemas/ids/{id}}) and
 * keeps each one: a schema id never changes what it names. An id the registry does not know ({@code 404}, error code
 * 40403) is an answer, and its records go to quarantine; a registry that does not answer is not, and the batch fails
 * (the stream is restarted from its checkpoint, so nothing is quarantined or skipped); refused credentials fail the
 * run. No message carries the password.
 */
final class SchemaRegistryClient {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The registry's error code for a schema id it does not have. */
  static final int SCHEMA_NOT_FOUND = 40403;

  private final SchemaRegistryConfig config;
  private final String baseUrl;
  private final HttpClient http;
  private final Map<Integer, String> schemas = new ConcurrentHashMap<>();

  SchemaRegistryClient(SchemaRegistryConfig config) {
    this.config = config;
    this.baseUrl = config.url().orElseThrow(() -> new IllegalStateException("no schema registry configured"))
        .replaceAll("/+$", "");
    HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(config.timeout());
    config.truststore().ifPresent(path -> builder.sslContext(sslContext(Path.of(path),
        config.truststorePassword().orElse(""))));
    this.http = builder.build();
  }

  /** The writer schema (Avro's JSON form) of the id; empty when the registry has no schema of that id. */
  Optional<String> schema(int id) {
    String known = schemas.get(id);
    if (known != null) {
      return Optional.of(known);
    }
    // An unknown id is asked again next time: the record that names it may have been written before its schema
    // was registered where this registry reads.
    Optional<String> fetched = fetch(id);
    fetched.ifPresent(schema -> schemas.put(id, schema));
    return fetched;
  }

  private Optional<String> fetch(int id) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + "/schemas/ids/" + id))
        .timeout(config.timeout())
        .header("Accept", "application/vnd.schemaregistry.v1+json, application/json");
    config.username().ifPresent(user -> request.header("Authorization", "Basic " + Base64.getEncoder()
        .encodeToString((user + ":" + config.password().orElse("")).getBytes(StandardCharsets.UTF_8))));
    HttpResponse<String> response;
    try {
      response = http.send(request.GET().build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      Optional<Throwable> handshake = handshakeFailure(e);
      if (handshake.isPresent()) {
        // Not an outage: waiting does not make a certificate trusted.
        throw new DependencyUnavailableException("schema registry " + baseUrl + ": TLS handshake failed ("
            + handshake.get().getMessage() + "); if its certificate is not signed by a CA this JVM trusts, set"
            + " tributary.schema-registry.truststore", e);
      }
      throw new RegistryUnavailableException("schema registry " + baseUrl + " did not answer for schema id " + id
          + " (" + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RegistryUnavailableException("interrupted while asking " + baseUrl + " for schema id " + id, e);
    }
    int status = response.statusCode();
    if (status == 200) {
      JsonNode schema = body(response).path("schema");
      if (!schema.isTextual()) {
        throw new RegistryUnavailableException("schema registry " + baseUrl + " answered schema id " + id
            + " without a schema field; is " + baseUrl + " a Confluent-compatible registry?", null);
      }
      return Optional.of(schema.asText());
    }
    if (status == 404 && body(response).path("error_code").asInt() == SCHEMA_NOT_FOUND) {
      return Optional.empty();
    }
    if (status == 401 || status == 403) {
      throw new DependencyUnavailableException("schema registry " + baseUrl + " refused "
          + config.username().map(user -> "the credentials of user '" + user + "'").orElse("a request without"
              + " credentials")
          + " (HTTP " + status + "): set tributary.schema-registry.username and password", null);
    }
    throw new RegistryUnavailableException("schema registry " + baseUrl + " answered HTTP " + status
        + " for schema id " + id + ": " + firstLine(response.body()), null);
  }

  private static Optional<Throwable> handshakeFailure(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof javax.net.ssl.SSLHandshakeException) {
        return Optional.of(cause);
      }
    }
    return Optional.empty();
  }

  private static JsonNode body(HttpResponse<String> response) {
    try {
      return JSON.readTree(response.body());
    } catch (IOException e) {
      return JSON.missingNode();
    }
  }

  private static String firstLine(String text) {
    String line = text == null ? "" : text.lines().findFirst().orElse("");
    return line.length() > 200 ? line.substring(0, 200) + "..." : line;
  }

  private static SSLContext sslContext(Path truststore, String password) {
    try (InputStream in = Files.newInputStream(truststore)) {
      KeyStore store = KeyStore.getInstance(truststore.toString().endsWith(".jks") ? "JKS" : "PKCS12");
      store.load(in, password.toCharArray());
      TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(store);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context;
    } catch (IOException | java.security.GeneralSecurityException e) {
      throw new DependencyUnavailableException("tributary.schema-registry.truststore " + truststore
          + " cannot be used: " + e.getMessage(), e);
    }
  }

  /** The registry did not answer, or answered with a server error: the batch is tried again. */
  static final class RegistryUnavailableException extends RuntimeException {
    RegistryUnavailableException(String message, Throwable cause) {
      super(message, cause);
    }

    /** The reason to restart a stream, if the registry's absence failed it. */
    static Optional<String> reason(Throwable failure) {
      for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
        if (cause instanceof RegistryUnavailableException) {
          return Optional.of(cause.getMessage());
        }
      }
      return Optional.empty();
    }
  }
}
