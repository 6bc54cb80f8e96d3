package io.tributary.devtools;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.launcher.ChildProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's first command, end to end in its own JVM: broker, sample events, bronze, silver, gold, tables
 * printed; then every notebook executed headless on the tables it built.
 */
class DemoIT {

  @Test
  void demoLandsTheSampleEventsAndStopsItsBroker(@TempDir Path dir) throws Exception {
    Path config = config(dir, "");
    String output = demo(dir, config);
    long orders = ordersProduced(output);
    assertThat(output).contains(String.format("Bronze table lake.bronze.orders: %,d rows", orders));
    assertThat(output).contains("Bronze table lake.bronze.customers: ");
    assertThat(output).containsPattern("Silver table lake.silver.customers: [0-9,]+ current rows");
    assertThat(output).containsPattern("Silver table lake.silver.customer_history: [0-9,]+ versions, [0-9,]+ current");
    assertThat(output).containsPattern("Silver table lake.silver.orders: [1-9][0-9,]* current rows");
    assertThat(output).contains("Quarantine lake.silver.quarantine");
    // The inventory database from one block: four tables, the last of which appeared in the second part, columns
    // and keys from the change events (products gained a column in the second part).
    assertThat(output).contains("Database inventory (tributary.silver.databases.inventory): 4 silver tables");
    assertThat(output).containsPattern("lake.silver.inventory_products +from inventory.public.products +7 current"
        + " rows; columns: id, name, price, updated_at, category");
    assertThat(output).containsPattern("lake.silver.inventory_stock +from inventory.public.stock +21 current rows;"
        + " columns: warehouse_id, product_id, quantity, updated_at");
    assertThat(output).containsPattern("lake.silver.inventory_suppliers +from inventory.public.suppliers +4 current");
    assertThat(output).containsPattern("lake.silver.inventory_warehouses +from inventory.public.warehouses +4 current");
    for (String model : List.of("daily_revenue", "orders_by_status", "customer_lifetime_value", "country_value")) {
      assertThat(output).containsPattern("Gold table lake.gold." + model + ": [1-9][0-9,]* rows");
    }
    assertThat(output).contains("Gold: 4 models built for ");
    assertThat(output).contains("== lake.bronze.orders (bronze, iceberg)", "== lake.silver.customers (silver, iceberg)",
        "== lake.gold.daily_revenue (gold, iceberg)");
    assertThat(output).containsPattern("   before: [0-9,]+ snapshots, [0-9,]+ data files");
    assertThat(output).containsPattern("   remove-orphan-files: no orphan files in [0-9.]+ s");
    assertThat(output).contains("Stopping the local Kafka broker");
    assertThat(Files.exists(dir.resolve("warehouse/bronze/orders/metadata"))).isTrue();

    // The notebooks, headless, on the tables the demo built; each checks what it shows.
    List<Notebooks.Executed> notebooks = Notebooks.runAll(Path.of("../notebooks").toAbsolutePath().normalize(),
        config, dir.resolve("notebooks"));
    assertThat(notebooks).extracting(run -> run.file().getFileName().toString()).containsExactly("00-setup.ipynb",
        "01-bronze.ipynb", "02-silver.ipynb", "03-gold.ipynb", "04-maintenance.ipynb");
    assertThat(notebooks.get(0).text()).contains("bronze.orders", "silver.customer_history", "gold.daily_revenue");
    assertThat(notebooks.get(1).text()).contains("partition", "first", "last", "append");
    assertThat(notebooks.get(2).text())
        .containsPattern("orders at snapshot -?\\d+: [1-9]\\d*; now: [1-9]\\d*; [1-9]\\d* changed status since")
        .contains("status_then", "status_now", "_valid_from", "value is not valid JSON");
    assertThat(notebooks.get(3).hasImage()).as("03-gold draws its chart").isTrue();
    assertThat(notebooks.get(4).text()).contains("lake.silver.orders (silver, iceberg): ", "before: ", "after:  ")
        .containsPattern("rewrite-data-files: \\d+ files -> \\d+ files");
  }

  /**
   * The same demo with {@code tributary.format = delta}: every layer in Delta tables named in the session catalog,
   * each record in bronze once, silver's entities and the inventory database, gold's four models with their tests,
   * and Delta's maintenance (OPTIMIZE, VACUUM) with the health lines.
   */
  @Test
  void theDemoRunsOnDeltaToo(@TempDir Path dir) throws Exception {
    String output = demo(dir, config(dir, "tributary.format = delta\n"));
    long orders = ordersProduced(output);
    assertThat(output).contains(String.format("Bronze table spark_catalog.`bronze`.`orders`: %,d rows", orders));
    assertThat(output).containsPattern("Silver table spark_catalog.`silver`.`customers`: [1-9][0-9,]* current rows");
    assertThat(output).containsPattern("Silver table spark_catalog.`silver`.`customer_history`: [0-9,]+ versions,"
        + " [1-9][0-9,]* current");
    assertThat(output).containsPattern("Silver table spark_catalog.`silver`.`orders`: [1-9][0-9,]* current rows");
    assertThat(output).contains("Database inventory (tributary.silver.databases.inventory): 4 silver tables");
    assertThat(output).containsPattern("spark_catalog.`silver`.`inventory_products` +from inventory.public.products"
        + " +7 current rows; columns: id, name, price, updated_at, category");
    assertThat(output).containsPattern("spark_catalog.`silver`.`inventory_stock` +from inventory.public.stock +21"
        + " current rows");
    for (String model : List.of("daily_revenue", "orders_by_status", "customer_lifetime_value", "country_value")) {
      assertThat(output).containsPattern("Gold table \\S*" + model + "\\S*: [1-9][0-9,]* rows");
    }
    assertThat(output).contains("Gold: 4 models built for ");
    assertThat(output).containsPattern("== \\S*orders\\S* \\(bronze, delta\\)")
        .containsPattern("== \\S*daily_revenue\\S* \\(gold, delta\\)")
        .containsPattern("   optimize: ").containsPattern("   vacuum: [0-9,]+ unreferenced files deleted")
        .doesNotContainPattern("(?m)^Deleted \\d+ files and directories"); // Delta's println, now logged
    assertThat(output).contains("Stopping the local Kafka broker");
    assertThat(Files.exists(dir.resolve("warehouse/_delta/bronze/orders/_delta_log"))).isTrue();
    assertThat(Files.exists(dir.resolve("warehouse/bronze/orders/metadata"))).as("no Iceberg table").isFalse();
  }

  /** The shipped config with the test's folders, and {@code extra} settings after them. */
  private static Path config(Path dir, String extra) throws Exception {
    Path shipped = Path.of("../conf/application.conf").toAbsolutePath().normalize();
    Path config = dir.resolve("demo.conf");
    Files.writeString(config, "include file(\"" + shipped + "\")\n"
        + "tributary.catalog.warehouse = \"" + dir.resolve("warehouse") + "\"\n"
        + "tributary.checkpoint-location = \"" + dir.resolve("checkpoints") + "\"\n"
        + "tributary.gold.models = \"" + Path.of("../gold/models").toAbsolutePath().normalize() + "\"\n" + extra);
    return config;
  }

  /** Runs the demo in its own JVM as the README's command does; returns what it printed. */
  private static String demo(Path dir, Path config) throws Exception {
    Path log = dir.resolve("demo.log");
    Process demo = ChildProcess.startMain(LocalTributary.class.getName(), log, "demo", "--config", config.toString(),
        "--kafka-home", dir.resolve("kafka").toString());
    assertThat(demo.waitFor(5, TimeUnit.MINUTES)).isTrue();
    String output = Files.readString(log);
    assertThat(demo.exitValue()).as(output).isZero();
    return output;
  }

  /**
   * The orders the demo produced, in two parts (counts per kind of record, e.g. {EVENT=1290, DUPLICATE=13}); bronze
   * must hold each once.
   */
  private static long ordersProduced(String output) {
    Matcher produced = Pattern.compile("shop\\.orders\\s+\\{([^}]*)}").matcher(output);
    long orders = 0;
    int parts = 0;
    while (produced.find()) {
      for (String kind : produced.group(1).split(", ")) {
        orders += Long.parseLong(kind.substring(kind.indexOf('=') + 1));
      }
      parts++;
    }
    assertThat(parts).as(output).isEqualTo(2);
    return orders;
  }
}
