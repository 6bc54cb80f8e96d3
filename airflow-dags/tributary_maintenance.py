"""Keeps the lakehouse tables healthy every night."""

import pendulum
from airflow import DAG
from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator

from tributary_settings import DEFAULT_ARGS, MAIN_CLASS, SPARK_CONF, SPARK_CONNECTION, TRIBUTARY_CONFIG, TRIBUTARY_JAR

DOC = """
### Tributary maintenance

Runs `tributary maintain`: for every bronze, silver and gold table, what its maintenance policy says is due
(compaction of small files and delete files, manifest rewrite, snapshot expiry, orphan removal, silver tombstone
purge; OPTIMIZE and VACUUM for Delta). Safe next to the running streams: expiry keeps every snapshot a silver
stream has not read yet, and commits that lose to a stream's commit are retried. The task log shows each table's
health before and after.
"""

with DAG(
    dag_id="tributary_maintenance",
    description="Compaction, snapshot expiry and cleanup of every table",
    doc_md=DOC,
    schedule="30 2 * * *",
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,
    default_args=DEFAULT_ARGS,
    tags=["tributary", "maintenance"],
) as dag:
    SparkSubmitOperator(
        task_id="maintain_tables",
        conn_id=SPARK_CONNECTION,
        application=TRIBUTARY_JAR,
        java_class=MAIN_CLASS,
        conf=SPARK_CONF,
        application_args=["maintain", "--config", TRIBUTARY_CONFIG],
    )
