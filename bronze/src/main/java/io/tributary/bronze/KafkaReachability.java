package io.tributary.bronze;

import io.tributary.common.config.KafkaConfig;
import io.tributary.common.lakehouse.DependencyUnavailableException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;

/**
 * Asks the brokers for the cluster's nodes before any stream starts. Spark's Kafka source retries an unreachable
 * broker for minutes and then fails with hundreds of lines that never name the address; this fails in
 * {@value #SECONDS} seconds with one line that does.
 */
final class KafkaReachability {
  static final int SECONDS = 30;

  private KafkaReachability() {}

  static void check(KafkaConfig kafka) {
    Map<String, Object> properties = new HashMap<>(kafka.clientProperties());
    int timeout = (int) Duration.ofSeconds(SECONDS).toMillis();
    properties.put("request.timeout.ms", timeout);
    properties.put("default.api.timeout.ms", timeout);
    try (Admin admin = Admin.create(properties)) {
      admin.describeCluster(new DescribeClusterOptions().timeoutMs(timeout)).nodes().get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof AuthenticationException || cause instanceof AuthorizationException) {
        // Kafka's message says which mechanism failed; it never holds the password.
        throw new DependencyUnavailableException("Kafka at " + kafka.bootstrapServers() + " refused the connection: "
            + cause.getMessage() + "; check the security settings under tributary.kafka.options", cause);
      }
      throw unreachable(kafka, cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unreachable(kafka, e);
    } catch (RuntimeException e) {
      // A bootstrap address that does not resolve fails the client's construction.
      throw unreachable(kafka, e);
    }
  }

  private static DependencyUnavailableException unreachable(KafkaConfig kafka, Throwable cause) {
    return new DependencyUnavailableException("Kafka at " + kafka.bootstrapServers() + " did not answer within "
        + SECONDS + " s (tributary.kafka.bootstrap-servers); start the broker, or fix the address or the security"
        + " settings, and run again. Nothing was loaded or skipped.", cause);
  }
}
