package io.tributary.launcher;

import io.tributary.bronze.BronzeIngestJob;
import io.tributary.common.cli.Arguments;
import io.tributary.common.config.TributaryConfig;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.SparkSession;

/**
 * {@code bronze --config FILE [--once] [--accept-data-loss]}: lands the configured Kafka topics in bronze tables.
 */
final class BronzeCommand implements Command {
  @Override
  public String name() {
    return "bronze";
  }

  @Override
  public String usage() {
    return "--config FILE [--once] [--accept-data-loss]   land Kafka topics in bronze tables (continuous, or until"
        + " caught up); --accept-data-loss skips records Kafka deleted before they were loaded, and records them";
  }

  @Override
  public int run(List<String> argList) {
    Arguments args = Arguments.parse(name(), argList, Set.of("config"), Set.of("once", "accept-data-loss"));
    TributaryConfig config = ConfigOption.load(args);
    BronzeIngestJob.checkConfig(config);
    SparkSession spark = Sessions.start(config, name());
    BronzeIngestJob job = new BronzeIngestJob(spark, config);
    if (args.flag("accept-data-loss")) {
      job.acceptingDataLoss();
    }
    job.run(args.flag("once"));
    return Tributary.OK;
  }
}
