package io.tributary.launcher;

import org.apache.spark.sql.SparkSession;

/**
 * How the launcher's JVM ends once a command has run. On success the session is stopped and {@code main} returns,
 * so that nothing keeps the JVM alive and a cluster manager sees a normal end. On failure the exit code is the
 * contract with the caller (1 failed run, 2 fix the command): a JVM of our own ends with it, and a driver started by
 * a cluster manager throws {@link ApplicationFailed}, which the manager records as a failed application.
 */
final class DriverExit {
  /** The Spark property spark-submit sets to {@code cluster} in a driver that a cluster manager started. */
  static final String DEPLOY_MODE = "spark.submit.deployMode";

  private DriverExit() {}

  static void finish(int code) {
    // The launcher's sessions are its only non-daemon threads' owners; stopped, they let the JVM end by itself.
    for (scala.Option<SparkSession> session : java.util.List.of(SparkSession.getActiveSession(),
        SparkSession.getDefaultSession())) {
      if (session.isDefined()) {
        session.get().stop();
      }
    }
    if (code == Tributary.OK) {
      return;
    }
    if ("cluster".equals(System.getProperty(DEPLOY_MODE))) {
      throw new ApplicationFailed(code);
    }
    System.exit(code);
  }

  /** A command failed in a driver run by a cluster manager; its reason was printed to the driver's stderr. */
  static final class ApplicationFailed extends RuntimeException {
    ApplicationFailed(int code) {
      super("tributary ended with exit code " + code + " (" + (code == Tributary.USAGE
          ? "fix the command line, configuration or gold models" : "the run failed")
          + "); the reason is in the lines above in the driver's log", null, false, false);
    }
  }
}
