package io.tributary.silver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.common.config.SchemaRegistryConfig;
import io.tributary.common.lakehouse.DependencyUnavailableException;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How the registry client classifies each answer: a schema, no such id, refused credentials, or not there. */
class SchemaRegistryClientTest {
  private static final String SCHEMA = "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\","
      + "\"type\":\"long\"}]}";

  private static SchemaRegistryClient client(String url, String user, String password) {
    return new SchemaRegistryClient(new SchemaRegistryConfig(Optional.of(url), Optional.ofNullable(user),
        Optional.ofNullable(password), Optional.empty(), Optional.empty(), Duration.ofSeconds(5)));
  }

  @Test
  void aKnownIdIsFetchedOnceAndAnUnknownOneIsAnAnswerNotAFailure() throws Exception {
    try (SchemaRegistryStandIn registry = new SchemaRegistryStandIn()) {
      int id = registry.register(SCHEMA);
      SchemaRegistryClient client = client(registry.url() + "/", null, null);
      assertThat(client.schema(id)).contains(SCHEMA);
      assertThat(client.schema(id)).contains(SCHEMA);
      assertThat(registry.lookups(id)).as("cached").isEqualTo(1);
      assertThat(client.schema(4711)).isEmpty();
    }
  }

  @Test
  void refusedCredentialsFailTheRunWithoutThePassword() throws Exception {
    try (SchemaRegistryStandIn registry = new SchemaRegistryStandIn("svc", "right-pw")) {
      int id = registry.register(SCHEMA);
      assertThat(client(registry.url(), "svc", "right-pw").schema(id)).contains(SCHEMA);
      assertThatThrownBy(() -> client(registry.url(), "svc", "wrong-pw-5").schema(id))
          .isInstanceOf(DependencyUnavailableException.class)
          .hasMessage("schema registry " + registry.url() + " refused the credentials of user 'svc' (HTTP 401): set"
              + " tributary.schema-registry.username and password")
          .satisfies(e -> assertThat(e.toString()).doesNotContain("wrong-pw-5"));
      assertThatThrownBy(() -> client(registry.url(), null, null).schema(id))
          .hasMessageContaining("refused a request without credentials (HTTP 401)");
    }
  }

  @Test
  void aRegistryThatDoesNotAnswerIsRetryable() throws Exception {
    SchemaRegistryStandIn registry = new SchemaRegistryStandIn();
    String url = registry.url();
    registry.stop();
    assertThatThrownBy(() -> client(url, null, null).schema(1))
        .isInstanceOf(SchemaRegistryClient.RegistryUnavailableException.class)
        .hasMessageStartingWith("schema registry " + url + " did not answer for schema id 1 (")
        .satisfies(e -> assertThat(SchemaRegistryClient.RegistryUnavailableException.reason(
            new IllegalStateException("wrapped", e))).isPresent());
  }
}
