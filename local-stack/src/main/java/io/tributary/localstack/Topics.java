package io.tributary.localstack;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Creates topics on a broker and returns once every partition of them has a leader; creating one that exists is not
 * an error.
 */
public final class Topics {
  private Topics() {}

  public static void create(Map<String, Object> clientProperties, List<String> names, int partitions,
      Map<String, String> topicConfig) {
    try (Admin admin = Admin.create(clientProperties)) {
      Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
      List<NewTopic> missing = names.stream()
          .filter(name -> !existing.contains(name))
          .map(name -> new NewTopic(name, partitions, (short) 1).configs(topicConfig))
          .toList();
      if (missing.isEmpty()) {
        return;
      }
      try {
        admin.createTopics(missing).all().get(30, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw e;
        }
      }
      awaitLeaders(admin, names);
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot create topics " + names + ": " + e.getCause().getMessage(), e);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("cannot create topics " + names + ": no answer in 30 s", e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot create topics " + names + ": " + e.getMessage(), e);
    }
  }

  /**
   * The controller acknowledges a new topic before the broker has applied it; waiting here means the first write to a
   * new topic never starts in that window.
   */
  private static void awaitLeaders(Admin admin, List<String> names) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      if (leadersKnown(admin, names)) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("partitions of " + names + " have no leader after 30 s");
      }
      Thread.sleep(100);
    }
  }

  private static boolean leadersKnown(Admin admin, List<String> names) throws Exception {
    Map<String, TopicDescription> described;
    try {
      described = admin.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return false; // the broker has not applied the new topic to its metadata yet (seen in a full test run)
      }
      throw e;
    }
    return described.values().stream()
        .flatMap(topic -> topic.partitions().stream())
        .allMatch(partition -> partition.leader() != null && !partition.leader().isEmpty());
  }
}
