package io.tributary.devtools;

import io.tributary.launcher.Tributary;
import java.util.List;

/**
 * The command line {@code bin/tributary} runs: the production jar's commands plus the tools for this machine (the
 * demo, the local Kafka broker, the sample producer and the notebook kernel), which the spark-submit jar leaves
 * out. Exit codes and help are the production commands' own.
 */
public final class LocalTributary {
  private LocalTributary() {}

  public static void main(String[] args) {
    commands().runAsMain(args);
  }

  /** The production command tree with this module's commands added. */
  static Tributary commands() {
    return new Tributary(() -> List.of(new KafkaCommand(), new ProduceCommand(), new NotebookKernelCommand(),
        new DemoCommand()));
  }
}
