package io.tributary.devtools;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tributary.launcher.ChildProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs the notebooks in {@code notebooks/} headless, as {@code jupyter nbconvert --execute} does for a user, with
 * the Java kernel (rapaio-jupyter-kernel, copied next to the build) on this module's classpath (the one
 * {@code bin/tributary} runs with). A cell that throws, a failing {@code check(...)} among them, fails the run.
 */
final class Notebooks {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Notebooks() {}

  /** One executed notebook: its file and the outputs of its code cells, in order. */
  record Executed(Path file, List<JsonNode> outputs) {
    String text() {
      StringBuilder text = new StringBuilder();
      for (JsonNode output : outputs) {
        output.path("text").forEach(line -> text.append(line.asText()));
        output.path("data").path("text/plain").forEach(line -> text.append(line.asText()));
        output.path("data").path("text/html").forEach(line -> text.append(line.asText()));
        text.append('\n');
      }
      return text.toString();
    }

    boolean hasImage() {
      return outputs.stream().anyMatch(output -> output.path("data").has("image/png"));
    }
  }

  /** Executes every notebook of {@code folder} against the lakehouse of {@code config}; fails on the first error. */
  static List<Executed> runAll(Path folder, Path config, Path work) throws Exception {
    assertThat(Path.of("/usr/bin/jupyter-nbconvert")).as("Debian's Jupyter runs the notebooks: apt-get install"
        + " jupyter-nbconvert python3-ipykernel python3-nbclient jupyter-client (.ci/run does)").isExecutable();
    Path jupyter = work.resolve("jupyter");
    writeKernel(jupyter.resolve("kernels"));
    List<Path> notebooks;
    try (Stream<Path> files = Files.list(folder)) {
      notebooks = files.filter(file -> file.getFileName().toString().endsWith(".ipynb")).sorted().toList();
    }
    List<Executed> executed = new ArrayList<>();
    for (Path notebook : notebooks) {
      for (JsonNode cell : JSON.readTree(notebook.toFile()).path("cells")) {
        assertThat(cell.path("outputs").size()).as(notebook + " is kept without outputs").isZero();
      }
      Path out = work.resolve("executed");
      Path log = work.resolve(notebook.getFileName() + ".log");
      // rapaio-jupyter-kernel 3.0.1 sometimes never answers at all: its channel threads (LoopThread) set their
      // "running" flag only after Thread.start(), so a thread scheduled at once sees it unset and ends; when that is
      // the shell's, no request is ever read (seen in about one start in five here, one thread missing from a
      // jstack of the hung kernel; a healthy start answers within seconds). When every channel thread ends that way,
      // the kernel's main thread, which only joins them, returns and the JVM exits: nbconvert then reports that the
      // kernel died before replying (seen once in CI). Either start is retried; any other failure fails at once.
      for (int attempt = 1; ; attempt++) {
        ProcessBuilder run = new ProcessBuilder("/usr/bin/jupyter", "nbconvert", "--to", "notebook", "--execute",
            notebook.toString(), "--output-dir", out.toString(), "--ExecutePreprocessor.timeout=900",
            "--ExecutePreprocessor.startup_timeout=20")
            .redirectErrorStream(true).redirectOutput(log.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        // Debian's Jupyter, whatever Python the build runs under.
        run.environment().keySet().removeIf(name -> name.startsWith("PYTHON") || name.startsWith("PYENV")
            || name.startsWith("JUPYTER") || name.equals("JAVA_TOOL_OPTIONS"));
        run.environment().put("JUPYTER_PATH", jupyter.toString());
        run.environment().put("JUPYTER_DATA_DIR", jupyter.toString());
        run.environment().put("JUPYTER_RUNTIME_DIR", work.resolve("runtime").toString());
        run.environment().put("TRIBUTARY_CONFIG", config.toString());
        Process process = run.start();
        if (!process.waitFor(20, TimeUnit.MINUTES)) {
          // Not left behind holding 2 GB: nbconvert and the kernel JVM it started.
          process.descendants().forEach(ProcessHandle::destroyForcibly);
          process.destroyForcibly();
          throw new AssertionError(notebook + " did not finish in 20 minutes:\n" + Files.readString(log));
        }
        String output = Files.readString(log);
        if (process.exitValue() != 0 && attempt < 8 && (output.contains("Kernel didn't respond")
            || output.contains("Kernel died before replying to kernel_info"))) {
          continue;
        }
        assertThat(process.exitValue()).as(notebook + ":\n" + output).isZero();
        break;
      }
      List<JsonNode> outputs = new ArrayList<>();
      for (JsonNode cell : JSON.readTree(out.resolve(notebook.getFileName()).toFile()).path("cells")) {
        cell.path("outputs").forEach(outputs::add);
      }
      assertThat(outputs).as(notebook + " has no error output")
          .noneMatch(output -> output.path("output_type").asText().equals("error"));
      executed.add(new Executed(notebook, outputs));
    }
    return executed;
  }

  private static void writeKernel(Path kernels) throws Exception {
    Path target = Path.of("target").toAbsolutePath();
    // The module's own jar, then what bin/tributary runs with.
    List<Path> classpath = new ArrayList<>();
    classpath.add(target.resolve("tributary-devtools-" + System.getProperty("project.version", "0.1.0-SNAPSHOT")
        + ".jar"));
    for (String file : List.of("local-runtime.classpath", "local-provided.classpath")) {
      for (String entry : Files.readString(target.resolve(file)).trim().split(":")) {
        classpath.add(Path.of(entry));
      }
    }
    List<String> flags = new ArrayList<>(ChildProcess.testJvmFlags());
    flags.add("-Xmx2g");
    NotebookKernel.write(kernels, target.resolve("jupyter/rapaio-jupyter-kernel.jar"), classpath, flags,
        Path.of("../conf/log4j2.properties"), Path.of(".."));
  }
}
