"""Builds the gold models every day."""

import pendulum
from airflow import DAG
from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator

from tributary_settings import DEFAULT_ARGS, MAIN_CLASS, SPARK_CONF, SPARK_CONNECTION, TRIBUTARY_CONFIG, TRIBUTARY_JAR

DOC = """
### Tributary gold models

Builds every gold model (`gold/models/*.sql`) for the run's day, with a two-day lookback: `tributary gold --from
{{ ds - 2 days }} --to {{ ds }}`. Silver keeps changing after a day ends (late deliveries, late CDC events), and a
run reads silver as it is when it starts, so the two days before are built again too.

A run is idempotent per interval (each model commits once, replacing exactly the interval's partitions or rows), so
retries, re-runs and backfills (`airflow dags backfill tributary_gold -s 2026-11-01 -e 2026-11-30`) are safe.
A failing model test fails the task; that model's table keeps its previous snapshot. See docs/RUNBOOK.md.
"""

with DAG(
    dag_id="tributary_gold",
    description="Gold SQL models, per day with a two-day lookback",
    doc_md=DOC,
    schedule="@daily",
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=True,
    max_active_runs=1,
    default_args=DEFAULT_ARGS,
    tags=["tributary", "gold"],
) as dag:
    SparkSubmitOperator(
        task_id="build_gold_models",
        conn_id=SPARK_CONNECTION,
        application=TRIBUTARY_JAR,
        java_class=MAIN_CLASS,
        conf=SPARK_CONF,
        application_args=[
            "gold",
            "--config", TRIBUTARY_CONFIG,
            "--from", "{{ macros.ds_add(ds, -2) }}",
            "--to", "{{ ds }}",
        ],
    )
