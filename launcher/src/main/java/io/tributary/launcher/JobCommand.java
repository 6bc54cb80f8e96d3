package io.tributary.launcher;

import io.tributary.common.cli.JobResult;
import io.tributary.common.config.LocalFolders;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.DeltaTableNames;
import io.tributary.common.lakehouse.LakehouseSession;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;

/**
 * A command that runs a job on Spark, in two steps: {@link #check()} does everything that needs no Spark (options,
 * the config, the gold models, local folders) and returns the job ready to run; {@link #call()} runs it on a new
 * session, prints its result as the last line ({@code gold: 4 models built for ...}) and exits with the code the
 * result maps to. {@code tributary validate} calls {@link #check()} alone.
 */
abstract class JobCommand implements Callable<Integer> {
  /**
   * Checks the command as a run would before it starts Spark, failing with the run's message (a
   * {@link io.tributary.common.cli.UsageException}, an invalid config or model) when something is wrong.
   */
  abstract Job check();

  @Override
  public final Integer call() throws Exception {
    Job job = check();
    SparkSession spark = LakehouseSession.builder(job.config(), job.name()).getOrCreate();
    DeltaTableNames.registerAll(spark, job.config());
    JobResult result = job.run().on(spark);
    System.out.println(job.name() + ": " + result.describe());
    return exitCode(result);
  }

  /** 0 when the job succeeded, 1 when its result says its caller must act. */
  int exitCode(JobResult result) {
    return result.succeeded() ? Tributary.OK : Tributary.FAILED;
  }

  /** A checked command: what it runs on its session (the master comes from spark-submit or bin/tributary). */
  record Job(String name, TributaryConfig config, Run run) {
    Job {
      LocalFolders.check(config);
    }
  }

  /** The part of a command that runs on Spark; returns what the job did. */
  @FunctionalInterface
  interface Run {
    JobResult on(SparkSession spark) throws Exception;
  }
}
