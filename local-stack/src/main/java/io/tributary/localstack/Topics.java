package io.tributary.localstack;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/** Creates topics on a broker; creating one that exists is not an error. */
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
    } catch (Exception e) {
      throw new IllegalStateException("Cannot create topics " + names + ": " + e.getMessage(), e);
    }
  }
}
