"""Rebuilds a silver table from bronze, or a gold table over a range of days, on demand."""

import pendulum
from airflow import DAG
from airflow.models.param import Param
from airflow.operators.python import BranchPythonOperator
from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator

from tributary_settings import DEFAULT_ARGS, MAIN_CLASS, SPARK_CONF, SPARK_CONNECTION, TRIBUTARY_CONFIG, TRIBUTARY_JAR

DOC = """
### Tributary rebuild and backfill (manual)

Trigger with parameters:

- `table = silver.<table>`: rebuilds the entity's table from all of bronze (`tributary rebuild`), or, with
  `from_snapshot`, from that earlier snapshot of the table and the bronze changes after it. The table is built in
  a shadow, validated, and switched in one commit; the old content stays readable by time travel, and a running
  silver job follows the switch by itself.
- `table = gold.<model>` with `from_date` and `to_date`: replaces the model's table with its result for those days
  (`tributary rebuild --from --to`, a full refresh).

See docs/RUNBOOK.md for when to use which, and for rollbacks.
"""


def choose_task(params):
    """The task for the given table: runs at trigger time, reads only the run's params."""
    if params["table"].startswith("gold."):
        return "rebuild_gold_table"
    if params.get("from_snapshot"):
        return "rebuild_silver_from_snapshot"
    return "rebuild_silver_table"


with DAG(
    dag_id="tributary_rebuild",
    description="Rebuild a silver table from bronze or a gold table over days (manual)",
    doc_md=DOC,
    schedule=None,
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,
    default_args=DEFAULT_ARGS,
    tags=["tributary", "recovery"],
    params={
        "table": Param("silver.orders", type="string", pattern=r"^(silver|gold)\.[A-Za-z_][A-Za-z0-9_]*$"),
        "from_snapshot": Param("", type="string", pattern=r"^[0-9]*$",
                               description="silver: start from this snapshot of the table (empty: all of bronze)"),
        "from_date": Param("2026-11-01", type="string", format="date", description="gold: first day"),
        "to_date": Param("2026-11-30", type="string", format="date", description="gold: last day"),
    },
) as dag:
    choose = BranchPythonOperator(task_id="choose", python_callable=choose_task)

    rebuild_silver = SparkSubmitOperator(
        task_id="rebuild_silver_table",
        conn_id=SPARK_CONNECTION,
        application=TRIBUTARY_JAR,
        java_class=MAIN_CLASS,
        conf=SPARK_CONF,
        application_args=["rebuild", "--config", TRIBUTARY_CONFIG, "--table", "{{ params.table }}"],
    )

    rebuild_silver_from_snapshot = SparkSubmitOperator(
        task_id="rebuild_silver_from_snapshot",
        conn_id=SPARK_CONNECTION,
        application=TRIBUTARY_JAR,
        java_class=MAIN_CLASS,
        conf=SPARK_CONF,
        application_args=[
            "rebuild",
            "--config", TRIBUTARY_CONFIG,
            "--table", "{{ params.table }}",
            "--from-snapshot", "{{ params.from_snapshot }}",
        ],
    )

    rebuild_gold = SparkSubmitOperator(
        task_id="rebuild_gold_table",
        conn_id=SPARK_CONNECTION,
        application=TRIBUTARY_JAR,
        java_class=MAIN_CLASS,
        conf=SPARK_CONF,
        application_args=[
            "rebuild",
            "--config", TRIBUTARY_CONFIG,
            "--table", "{{ params.table }}",
            "--from", "{{ params.from_date }}",
            "--to", "{{ params.to_date }}",
        ],
    )

    choose >> [rebuild_silver, rebuild_silver_from_snapshot, rebuild_gold]
