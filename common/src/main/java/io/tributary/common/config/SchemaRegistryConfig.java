package io.tributary.common.config;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * A Confluent-compatible schema registry, where the Avro decoders fetch writer schemas by id
 * ({@code GET /schemas/ids/{id}}). Its password and truststore password are secrets: {@link #toString} and every
 * message leave them out.
 *
 * @param url the registry's base URL ({@code https://registry:8081}); empty when no registry is configured
 * @param username basic-auth user, if the registry wants one
 * @param password basic-auth password (with {@code username})
 * @param truststore a PKCS12 or JKS truststore for the registry's TLS certificate; absent: the JVM's default trust
 * @param truststorePassword the truststore's password
 * @param timeout how long one request may take
 */
public record SchemaRegistryConfig(Optional<String> url, Optional<String> username, Optional<String> password,
    Optional<String> truststore, Optional<String> truststorePassword, Duration timeout) {

  static final Set<String> KEYS = Set.of("url", "username", "password", "truststore", "truststore-password",
      "timeout");

  static SchemaRegistryConfig read(ConfigReader reader) {
    reader.rejectUnknownKeys(KEYS);
    Optional<String> url = reader.optionalString("url");
    url.ifPresent(text -> {
      if (!text.startsWith("http://") && !text.startsWith("https://")) {
        reader.problem("url", "must start with http:// or https://");
      } else if (text.substring(text.indexOf("//") + 2).split("/", 2)[0].contains("@")) {
        reader.problem("url", "must not hold credentials; set username and password instead");
      }
    });
    Optional<String> username = reader.optionalString("username");
    Optional<String> password = reader.optionalString("password");
    if (username.isPresent() != password.isPresent()) {
      reader.problem(username.isPresent() ? "password" : "username", "is missing: basic auth needs both"
          + " username and password");
    }
    Optional<String> truststore = reader.optionalString("truststore");
    Optional<String> truststorePassword = reader.optionalString("truststore-password");
    if (truststorePassword.isPresent() && truststore.isEmpty()) {
      reader.problem("truststore", "is missing: truststore-password is set without it");
    }
    return new SchemaRegistryConfig(url, username, password, truststore, truststorePassword,
        reader.positiveDuration("timeout"));
  }

  @Override
  public String toString() {
    return "SchemaRegistryConfig[url=" + url.orElse("(none)") + ", username=" + username.orElse("(none)")
        + ", password=" + password.map(secret -> "***").orElse("(none)") + ", truststore="
        + truststore.orElse("(default)") + ", timeout=" + timeout + "]";
  }
}
