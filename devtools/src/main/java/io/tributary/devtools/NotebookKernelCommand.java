package io.tributary.devtools;

import io.tributary.common.cli.UsageException;
import io.tributary.launcher.Tributary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code notebook-kernel [--dir KERNELS]}: installs the Jupyter kernel spec for {@code notebooks/} (the Java kernel
 * with this build's classpath and Spark's JVM flags), by default into {@code ~/.local/share/jupyter/kernels}.
 */
@Command(name = "notebook-kernel", description = "Installs the Jupyter kernel for notebooks/ (Java, with this"
    + " build's classpath and Spark's JVM flags). Run it from the project folder.")
final class NotebookKernelCommand implements Callable<Integer> {
  @Option(names = "--dir", paramLabel = "KERNELS", description = "Where Jupyter looks for kernels (default"
      + " ~/.local/share/jupyter/kernels).")
  private Path dir;

  @Override
  public Integer call() throws Exception {
    Path kernels = dir != null ? dir : Path.of(System.getProperty("user.home"), ".local/share/jupyter/kernels");
    Path kernelJar = Path.of("devtools/target/jupyter/rapaio-jupyter-kernel.jar");
    if (!Files.exists(kernelJar)) {
      throw new UsageException("'notebook-kernel': " + kernelJar.toAbsolutePath() + " is missing; run it from the"
          + " project folder after mvn -B -DskipTests package");
    }
    // The kernel's compiler reads jars only: this module's class folder is replaced by its jar.
    List<Path> classpath = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(":")) {
      Path path = Path.of(entry);
      if (Files.isDirectory(path) && path.endsWith("devtools/target/classes")) {
        try (var jars = Files.list(path.getParent())) {
          path = jars.filter(jar -> jar.getFileName().toString().matches("tributary-devtools-.*\\.jar")).findFirst()
              .orElseThrow(() -> new UsageException("'notebook-kernel': build the devtools jar first: mvn -B"
                  + " -DskipTests package"));
        }
      }
      classpath.add(path);
    }
    // The flags bin/tributary runs with (Spark's --add-opens and friends).
    List<String> flags = new ArrayList<>(List.of(Files.readString(Path.of("launcher/target/jvm-flags.txt")).trim()
        .split("\\s+")));
    flags.add("-Xmx2g");
    Path dir = NotebookKernel.write(kernels, kernelJar, classpath, flags, Path.of("conf/log4j2.properties"), Path.of(""));
    System.out.println("Installed the kernel '" + NotebookKernel.NAME + "' in " + dir + ". Open the notebooks with:\n"
        + "  jupyter notebook notebooks/\n"
        + "They read conf/application.conf (the demo's tables); set TRIBUTARY_CONFIG to another file for yours.");
    return Tributary.OK;
  }
}
