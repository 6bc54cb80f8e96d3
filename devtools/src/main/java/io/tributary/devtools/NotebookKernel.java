package io.tributary.devtools;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;

/**
 * The Jupyter kernel spec of the notebooks: the Java kernel (rapaio-jupyter-kernel) with the project's classpath
 * and Spark's JVM flags. The classpath goes in as one jar whose manifest lists the entries (the kernel adds a long
 * list of entries in the background, and a first cell could run before it has, failing to compile its imports).
 */
public final class NotebookKernel {
  public static final String NAME = "tributary-java";

  private NotebookKernel() {}

  /**
   * Writes {@code <kernels>/tributary-java/kernel.json} and its classpath jar; returns the kernel's folder.
   *
   * @param kernelJar the rapaio-jupyter-kernel jar
   * @param classpath jars (the kernel's compiler does not read class folders)
   * @param jvmFlags e.g. Spark's {@code --add-opens} flags
   * @param projectDir the folder relative paths (config file, warehouse) are relative to
   */
  public static Path write(Path kernels, Path kernelJar, List<Path> classpath, List<String> jvmFlags, Path log4j,
      Path projectDir) throws IOException {
    Path dir = kernels.resolve(NAME);
    Files.createDirectories(dir);
    Path classpathJar = dir.resolve("classpath.jar");
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, classpath.stream()
        .map(entry -> entry.toAbsolutePath().toUri().toString()).collect(Collectors.joining(" ")));
    try (OutputStream out = Files.newOutputStream(classpathJar); JarOutputStream jar = new JarOutputStream(out,
        manifest)) {
      jar.flush();
    }
    List<String> argv = new ArrayList<>();
    argv.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    argv.addAll(jvmFlags);
    argv.add("-Djava.awt.headless=true");
    argv.add("-Dlog4j2.configurationFile=" + log4j.toAbsolutePath());
    // The project's classes on the kernel JVM's own classpath too (first, so Spark's versions of what the kernel
    // jar bundles win): Spark compiles generated code against the thread's context classloader, which is this one.
    argv.add("-cp");
    argv.add(classpathJar.toAbsolutePath() + ":" + kernelJar.toAbsolutePath());
    argv.add("org.rapaio.jupyter.kernel.MainApp");
    argv.add("{connection_file}");
    // The kernel exits at start unless all of these are set, even empty.
    Map<String, String> env = new LinkedHashMap<>();
    env.put("RJK_CLASSPATH", classpathJar.toAbsolutePath().toString());
    env.put("RJK_COMPILER_OPTIONS", "");
    env.put("RJK_INIT_SCRIPT", "");
    env.put("RJK_TIMEOUT_MILLIS", "-1");
    env.put("RJK_MIMA_CACHE", dir.resolve("mima_cache").toAbsolutePath().toString());
    // What relative paths in the config resolve against: the kernel itself runs in the notebook's folder.
    env.put("TRIBUTARY_HOME", projectDir.toAbsolutePath().normalize().toString());
    // The notebooks' session is local: its driver binds to the loopback address (and Spark says nothing about it).
    env.put("SPARK_LOCAL_IP", "127.0.0.1");
    Map<String, Object> kernel = new LinkedHashMap<>();
    kernel.put("argv", argv);
    kernel.put("display_name", "Java (Tributary)");
    kernel.put("language", "java");
    kernel.put("interrupt_mode", "message");
    kernel.put("env", env);
    new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(dir.resolve("kernel.json").toFile(), kernel);
    return dir;
  }
}
