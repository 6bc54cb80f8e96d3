package io.tributary.gold;

import io.tributary.common.lakehouse.TableAddress;
import java.util.List;

/**
 * The models a run builds, in order, for one interval, with their inputs pinned. {@link #describe()} is what
 * {@code --dry-run} prints: every model with its table, what it reads and the SQL that would run.
 *
 * @param fullRefresh every model replaces its whole table with its result for the interval (a rebuild), whatever
 *     its materialization
 */
public record GoldPlan(Interval interval, List<GoldModel> models, InputTables inputs, GoldTables tables,
    boolean fullRefresh) {

  /** Where a model's table is. */
  TableAddress addressOf(GoldModel model) {
    return tables.model(model.name());
  }

  /** A model's table as people name it ({@code lake.gold.daily_revenue}; Delta: {@code spark_catalog.gold...}). */
  String tableOf(GoldModel model) {
    return addressOf(model).toString();
  }

  public String describe() {
    StringBuilder text = new StringBuilder("Gold plan for " + interval + " ({{ start }} = " + interval.startLiteral()
        + ", {{ end }} = " + interval.endLiteral() + "): " + models.size() + " model"
        + (models.size() == 1 ? "" : "s") + "\n");
    int index = 0;
    for (GoldModel model : models) {
      text.append(String.format("%n[%d/%d] %s%n", ++index, models.size(), headline(model)));
      text.append("      reads: ").append(inputs.lineage(model)).append('\n');
      if (!model.tests().isEmpty()) {
        text.append("      tests: ").append(String.join(", ", model.tests().stream().map(ModelTest::describe)
            .toList())).append('\n');
      }
      text.append("      SQL:\n");
      model.render(interval, inputs::sqlName).lines().forEach(line -> text.append("        ").append(line)
          .append('\n'));
    }
    return text.toString();
  }

  /** E.g. {@code daily_revenue: incremental, overwrites delivery_date in 2026-11-01 of lake.gold.daily_revenue}. */
  String headline(GoldModel model) {
    String table = tableOf(model);
    if (fullRefresh) {
      return model.name() + ": full refresh, replaces " + table + " with the result for " + interval;
    }
    return model.name() + ": " + switch (model.materialization()) {
      case TABLE -> "table, replaces " + table;
      case INCREMENTAL -> "incremental, overwrites " + model.partitionBy().orElseThrow() + " in " + interval + " of "
          + table;
      case MERGE -> "merge on (" + String.join(", ", model.uniqueKey()) + ") into " + table;
    };
  }
}
