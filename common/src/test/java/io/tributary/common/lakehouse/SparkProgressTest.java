package io.tributary.common.lakehouse;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.testing.SharedSpark;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Long work says how far it is while it runs, and stops saying it once it is done. */
@ExtendWith(SharedSpark.class)
class SparkProgressTest {

  @Test
  void namesTheRunningStageWithItsTasksAndTheTimeItsPaceLeaves(SparkSession spark) throws Exception {
    List<String> lines = new CopyOnWriteArrayList<>();
    // 8 tasks of 400 ms each on the test session's cores: long enough for several ticks of 300 ms.
    try (SparkProgress progress = SparkProgress.start(spark, "slow job", lines::add, Duration.ofMillis(300))) {
      long count = spark.range(0, 8, 1, 8).map((org.apache.spark.api.java.function.MapFunction<Long, Long>) id -> {
        Thread.sleep(400);
        return id;
      }, org.apache.spark.sql.Encoders.LONG()).count();
      assertThat(count).isEqualTo(8);
      assertThat(progress.elapsed()).isGreaterThan(0.4);
    }
    int printed = lines.size();
    assertThat(lines).isNotEmpty().allMatch(line -> line.matches("slow job: \\d+ s so far.*"));
    assertThat(lines).anyMatch(line -> line.matches("slow job: \\d+ s so far, stage \\d+: \\d of 8 tasks.*"));
    assertThat(lines).anyMatch(line -> line.matches(".*, stage \\d+: [1-7] of 8 tasks, about \\d+ s left in it.*"));
    Thread.sleep(700);
    assertThat(lines).as("no line after close").hasSize(printed);
  }

  @Test
  void aBackgroundLineSpeaksOnlyWhenNoNamedWorkDoes(SparkSession spark) throws Exception {
    List<String> background = new CopyOnWriteArrayList<>();
    List<String> named = new CopyOnWriteArrayList<>();
    try (SparkProgress program = SparkProgress.inBackground(spark, "benchmark", background::add,
        Duration.ofMillis(300))) {
      try (SparkProgress work = SparkProgress.start(spark, "named", named::add, Duration.ofMillis(300))) {
        slowJob(spark);
      }
      assertThat(named).isNotEmpty();
      assertThat(background).as("silent while named work speaks").isEmpty();
      slowJob(spark);
      assertThat(background).isNotEmpty().allMatch(line -> line.matches("benchmark: \\d+ s so far, stage \\d+: .*"));
      int printed = background.size();
      Thread.sleep(700);
      assertThat(background).as("silent while Spark runs nothing").hasSize(printed);
    }
  }

  private static void slowJob(SparkSession spark) {
    assertThat(spark.range(0, 8, 1, 8).map((org.apache.spark.api.java.function.MapFunction<Long, Long>) id -> {
      Thread.sleep(400);
      return id;
    }, org.apache.spark.sql.Encoders.LONG()).count()).isEqualTo(8);
  }
}
