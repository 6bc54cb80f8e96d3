package io.tributary.gold;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Model files: headers, references, run order, selection, and the errors that stop a run before it starts. */
class ModelGraphTest {
  private static final String REVENUE = """
      -- Daily revenue per currency.
      -- materialized: incremental
      -- partition-by: order_date
      -- test: not_null(order_date)
      -- test: accepted_values(currency, 'EUR', 'USD', 'GBP')
      -- test: assert(revenue >= 0)
      SELECT CAST(event_time AS DATE) AS order_date, currency, sum(amount) AS revenue
      FROM {{ source('silver.orders') }}
      WHERE event_time >= {{ start }} AND event_time < {{ end }}
      GROUP BY 1, 2
      """;

  private static String model(String... refs) {
    StringBuilder sql = new StringBuilder("SELECT 1 AS x");
    for (String ref : refs) {
      sql.append(" UNION ALL SELECT x FROM {{ ref('").append(ref).append("') }}");
    }
    return sql.toString();
  }

  @Test
  void readsTheHeaderAndTheReferences() {
    GoldModel revenue = ModelGraph.of(Map.of("daily_revenue", REVENUE)).inOrder().get(0);
    assertThat(revenue.name()).isEqualTo("daily_revenue");
    assertThat(revenue.materialization()).isEqualTo(Materialization.INCREMENTAL);
    assertThat(revenue.partitionBy()).isEqualTo(Optional.of("order_date"));
    assertThat(revenue.tests().stream().map(ModelTest::describe)).containsExactly("not_null(order_date)",
        "accepted_values(currency, 'EUR', 'USD', 'GBP')", "assert(revenue >= 0)");
    assertThat(revenue.sources()).containsExactly("silver.orders");
    assertThat(revenue.models()).isEmpty();
    assertThat(revenue.sql()).startsWith("SELECT CAST(event_time AS DATE)").endsWith("GROUP BY 1, 2");
  }

  @Test
  void runsEveryModelAfterWhatItReferencesAndSelectsDownstream() {
    ModelGraph graph = ModelGraph.of(Map.of(
        "a_report", model("revenue", "customers"),
        "customers", model(),
        "revenue", model("customers"),
        "unrelated", model()));
    assertThat(graph.inOrder().stream().map(GoldModel::name))
        .containsExactly("customers", "revenue", "a_report", "unrelated");
    assertThat(graph.selectWithDownstream("customers").stream().map(GoldModel::name))
        .containsExactly("customers", "revenue", "a_report");
    assertThat(graph.select("revenue").stream().map(GoldModel::name)).containsExactly("revenue");
  }

  @Test
  void anUnknownModelOrACycleFailsBeforeAnythingRuns() {
    assertThatThrownBy(() -> ModelGraph.of(Map.of("report", model("revenu"), "revenue", model())))
        .isInstanceOf(InvalidModelException.class)
        .satisfies(e -> assertThat(((InvalidModelException) e).problems()).containsExactly(
            "model report references unknown model 'revenu' (known: report, revenue)"));
    assertThatThrownBy(() -> ModelGraph.of(Map.of("a", model("b"), "b", model("c"), "c", model("a"), "d", model())))
        .isInstanceOf(InvalidModelException.class)
        .satisfies(e -> assertThat(((InvalidModelException) e).problems()).containsExactly(
            "models form a cycle: a -> b -> c -> a"));
    assertThatThrownBy(() -> ModelGraph.of(Map.of("a", model("a"))))
        .satisfies(e -> assertThat(((InvalidModelException) e).problems()).containsExactly(
            "models form a cycle: a -> a"));
  }

  @Test
  void headerMistakesAreNamedWithModelAndLine() {
    assertThatThrownBy(() -> ModelGraph.of(Map.of(
        "Bad-Name", "SELECT 1",
        "m", "-- materialized: incremental\n-- tset: unique(x)\n-- test: unique()\n-- test: exists(x)\nSELECT 1",
        "k", "-- materialized: merge\nSELECT 1",
        "e", "-- materialized: view\n")))
        .isInstanceOf(InvalidModelException.class)
        .satisfies(e -> assertThat(((InvalidModelException) e).problems()).containsExactlyInAnyOrder(
            "model Bad-Name: the file name must be a table name (lower case letters, digits, _)",
            "model m line 2: unknown header 'tset' (known: materialized, partition-by, unique-key, test)",
            "model m line 3: unique needs a column",
            "model m line 4: test must be one of not_null(...), unique(...), accepted_values(...), relationship(...),"
                + " assert(...); got 'exists(x)'",
            "model m: materialized incremental needs '-- partition-by: <date column>'",
            "model k: materialized merge needs '-- unique-key: <column>[, <column>...]'",
            "model e line 1: materialized must be table, incremental or merge; got 'view'",
            "model e: has no SELECT after its header"));
  }

  @Test
  void placeholdersSourcesAndRelationshipsAreChecked() {
    assertThatThrownBy(() -> ModelGraph.of(Map.of(
        "a", "SELECT * FROM {{ source('orders') }} WHERE d >= {{ begin }}",
        "b", "-- test: relationship(customer_id, customers)\nSELECT 1 AS customer_id")))
        .isInstanceOf(InvalidModelException.class)
        .satisfies(e -> assertThat(((InvalidModelException) e).problems()).containsExactlyInAnyOrder(
            "model a: source 'orders' must be written as 'namespace.table'",
            "model a: unknown placeholder '{{ begin }}' (known: {{ ref('model') }}, {{ source('namespace.table') }},"
                + " {{ start }}, {{ end }})",
            "model b line 1: relationship needs a column and the referenced table.column (model.column or"
                + " namespace.table.column); got 'relationship(customer_id, customers)'"));
  }

  @Test
  void aRelationshipToAModelRunsAfterItAndReferencesRenderAsGiven() {
    ModelGraph graph = ModelGraph.of(Map.of(
        "a_orders", "-- test: relationship(customer_id, z_customers.id)\n"
            + "-- test: relationship(customer_id, silver.customers.id)\n"
            + "SELECT * FROM {{ source('silver.orders') }} WHERE t >= {{ start }} AND t < {{end}}",
        "z_customers", "SELECT 1 AS id"));
    assertThat(graph.inOrder().stream().map(GoldModel::name)).containsExactly("z_customers", "a_orders");
    GoldModel orders = graph.select("a_orders").get(0);
    assertThat(orders.sources()).containsExactlyInAnyOrder("silver.orders", "silver.customers");
    assertThat(orders.render(Interval.days(java.time.LocalDate.parse("2026-11-01"),
        java.time.LocalDate.parse("2026-11-03")), reference -> "<" + reference + ">"))
        .isEqualTo("SELECT * FROM <silver.orders> WHERE t >= DATE'2026-11-01' AND t < DATE'2026-11-04'");
    assertThat(orders.tests().get(0).offendingRows("result", reference -> "<" + reference + ">"))
        .isEqualTo("SELECT r.* FROM result r LEFT ANTI JOIN <ref:z_customers> t ON r.customer_id = t.id"
            + " WHERE r.customer_id IS NOT NULL");
    assertThat(orders.version()).hasSize(64).isNotEqualTo(graph.select("z_customers").get(0).version());
  }

  @Test
  void loadsTheSqlFilesOfAFolder(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("daily_revenue.sql"), REVENUE);
    Files.writeString(dir.resolve("README.md"), "not a model");
    assertThat(ModelGraph.load(dir).inOrder().stream().map(GoldModel::name)).containsExactly("daily_revenue");
    assertThatThrownBy(() -> ModelGraph.load(dir.resolve("missing")))
        .hasMessageContaining("tributary.gold.models: folder").hasMessageContaining("missing does not exist");
  }
}
