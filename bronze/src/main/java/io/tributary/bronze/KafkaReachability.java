package io.tributary.bronze;

import io.tributary.common.config.KafkaConfig;
import io.tributary.common.lakehouse.DependencyUnavailableException;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Asks the brokers for the cluster's nodes before any stream starts. Spark's Kafka source retries an unreachable
 * broker for minutes and then fails with hundreds of lines that never name the address; this fails in
 * {@value #SECONDS} seconds with one line that does.
 */
final class KafkaReachability {
  static final int SECONDS = 30;

  private KafkaReachability() {}

  /**
   * Checks that the brokers answer and that the client may read each of {@code topics} (those that exist): without
   * the ACLs, Spark's source would fail the stream deep inside a batch, or retry; this names the topics and what to
   * grant.
   */
  static void check(KafkaConfig kafka, Collection<String> topics) {
    Map<String, Object> properties = new HashMap<>(kafka.clientProperties());
    int timeout = (int) Duration.ofSeconds(SECONDS).toMillis();
    properties.put("request.timeout.ms", timeout);
    properties.put("default.api.timeout.ms", timeout);
    try (Admin admin = Admin.create(properties)) {
      admin.describeCluster(new DescribeClusterOptions().timeoutMs(timeout)).nodes().get();
      if (!topics.isEmpty()) {
        checkReadable(kafka, admin, topics, timeout);
      }
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
    } catch (DependencyUnavailableException e) {
      throw e;
    } catch (RuntimeException e) {
      // A bootstrap address that does not resolve fails the client's construction.
      throw unreachable(kafka, e);
    }
  }

  private static void checkReadable(KafkaConfig kafka, Admin admin, Collection<String> topics, int timeout)
      throws InterruptedException {
    Set<String> unreadable = new TreeSet<>();
    var described = admin.describeTopics(topics, new DescribeTopicsOptions().timeoutMs(timeout)
        .includeAuthorizedOperations(true)).topicNameValues();
    for (String topic : topics) {
      try {
        Set<AclOperation> allowed = described.get(topic).get().authorizedOperations();
        // null: the broker does not say (no authorizer), so reading is not refused.
        if (allowed != null && !allowed.contains(AclOperation.READ) && !allowed.contains(AclOperation.ALL)) {
          unreadable.add(topic);
        }
      } catch (ExecutionException e) {
        if (e.getCause() instanceof TopicAuthorizationException) {
          unreadable.add(topic);
        } else if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
          throw unreachable(kafka, e.getCause());
        }
        // A topic that does not exist yet is waited for, as without ACLs.
      }
    }
    if (!unreadable.isEmpty()) {
      throw new DependencyUnavailableException("Kafka at " + kafka.bootstrapServers() + ": the client is not"
          + " authorized to read " + String.join(", ", unreadable) + "; grant its principal READ and DESCRIBE on"
          + " these topics (and READ on consumer groups prefixed spark-kafka-source), or fix the credentials under"
          + " tributary.kafka.options. Nothing was loaded.", null);
    }
  }

  private static DependencyUnavailableException unreachable(KafkaConfig kafka, Throwable cause) {
    return new DependencyUnavailableException("Kafka at " + kafka.bootstrapServers() + " did not answer within "
        + SECONDS + " s (tributary.kafka.bootstrap-servers); start the broker, or fix the address or the security"
        + " settings, and run again. Nothing was loaded or skipped.", cause);
  }
}
