package io.tributary.gold;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;

/**
 * The gold models of a folder and the order they run in: every model after the models it references. A reference
 * to a model that does not exist, or models that reference each other in a cycle, fail before anything runs.
 */
public final class ModelGraph {
  private final Map<String, GoldModel> models;
  private final List<String> order;

  private ModelGraph(Map<String, GoldModel> models, List<String> order) {
    this.models = models;
    this.order = order;
  }

  /** Reads every {@code *.sql} file of a local folder. */
  public static ModelGraph load(Path folder) {
    return load(folder.toAbsolutePath().toUri().toString(), new Configuration());
  }

  /** Reads every {@code *.sql} file of a folder on any Hadoop file system (local, s3a://, hdfs://). */
  public static ModelGraph load(String folder, Configuration hadoop) {
    Map<String, String> texts = new TreeMap<>();
    try {
      org.apache.hadoop.fs.Path root = new org.apache.hadoop.fs.Path(folder);
      FileSystem fs = root.getFileSystem(hadoop);
      if (!fs.exists(root) || !fs.getFileStatus(root).isDirectory()) {
        throw new InvalidModelException(List.of("tributary.gold.models: folder " + folder + " does not exist"));
      }
      for (FileStatus file : fs.listStatus(root, path -> path.getName().endsWith(".sql"))) {
        String name = file.getPath().getName();
        try (InputStream in = fs.open(file.getPath())) {
          texts.put(name.substring(0, name.length() - ".sql".length()),
              new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the gold models in " + folder, e);
    }
    return of(texts);
  }

  /** The graph of models given as name → file text. */
  public static ModelGraph of(Map<String, String> texts) {
    List<String> problems = new ArrayList<>();
    Map<String, GoldModel> models = new TreeMap<>();
    texts.forEach((name, text) -> models.put(name, GoldModel.parse(name, text, problems)));
    for (GoldModel model : models.values()) {
      for (String reference : model.models().stream().sorted().toList()) {
        if (!models.containsKey(reference)) {
          problems.add("model " + model.name() + " references unknown model '" + reference + "' (known: "
              + String.join(", ", models.keySet()) + ")");
        }
      }
    }
    if (problems.isEmpty()) {
      List<String> order = new ArrayList<>();
      Set<String> visiting = new LinkedHashSet<>();
      for (String name : models.keySet()) {
        visit(name, models, visiting, order, problems);
        if (!problems.isEmpty()) {
          break; // one cycle, named once from its first model, is enough to act on
        }
      }
      if (problems.isEmpty()) {
        return new ModelGraph(models, List.copyOf(order));
      }
    }
    throw new InvalidModelException(problems);
  }

  /** Depth-first; a model met again while its own references are being visited closes a cycle. */
  private static void visit(String name, Map<String, GoldModel> models, Set<String> visiting, List<String> order,
      List<String> problems) {
    if (order.contains(name)) {
      return;
    }
    if (visiting.contains(name)) {
      List<String> path = new ArrayList<>(visiting);
      List<String> cycle = new ArrayList<>(path.subList(path.indexOf(name), path.size()));
      cycle.add(name);
      String text = "models form a cycle: " + String.join(" -> ", cycle);
      if (!problems.contains(text)) {
        problems.add(text);
      }
      return;
    }
    visiting.add(name);
    for (String reference : models.get(name).models().stream().sorted().toList()) {
      visit(reference, models, visiting, order, problems);
    }
    visiting.remove(name);
    if (problems.isEmpty()) {
      order.add(name);
    }
  }

  /** Every model, each after the models it references. */
  public List<GoldModel> inOrder() {
    return order.stream().map(models::get).toList();
  }

  /**
   * One model.
   *
   * @throws InvalidModelException when there is no such model
   */
  public List<GoldModel> select(String name) {
    return select(name, false);
  }

  /**
   * One model and every model that depends on it directly or not, in run order.
   *
   * @throws InvalidModelException when there is no such model
   */
  public List<GoldModel> selectWithDownstream(String name) {
    return select(name, true);
  }

  private List<GoldModel> select(String name, boolean downstream) {
    if (!models.containsKey(name)) {
      throw new InvalidModelException(List.of("--select: no model named '" + name + "' (known: "
          + String.join(", ", models.keySet()) + ")"));
    }
    Set<String> selected = new LinkedHashSet<>(List.of(name));
    if (downstream) {
      for (String candidate : order) {
        if (models.get(candidate).models().stream().anyMatch(selected::contains)) {
          selected.add(candidate);
        }
      }
    }
    return order.stream().filter(selected::contains).map(models::get).toList();
  }

  /** Whether a model of this name exists. */
  public boolean contains(String name) {
    return models.containsKey(name);
  }
}
