"""Checks that the bronze and silver streams are alive and caught up."""

import pendulum
from airflow import DAG
from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator

from tributary_settings import DEFAULT_ARGS, MAIN_CLASS, SPARK_CONF, SPARK_CONNECTION, TRIBUTARY_CONFIG, TRIBUTARY_JAR

DOC = """
### Tributary streams: alive and caught up

The bronze and silver jobs are long-running Spark applications (`tributary bronze --config FILE`,
`tributary silver --config FILE`), supervised by the cluster manager, not by Airflow. Every 10 minutes this DAG
runs `tributary status`, which reads each stream's checkpoint and compares it with its source: for bronze, the
records Kafka holds past the last committed batch; for silver, the bronze snapshots it has not read. A stream
that is behind and has not committed a batch for `--max-idle` fails the task (and its alerts).

Restart path, when the task fails:
1. Look at the driver log of the stream's application (`bronze-<source>` / `silver-<entity>` lines; each
   micro-batch logs one line). A stream stops for good only on a failure a restart does not fix, and says why.
2. Fix the cause (Kafka unreachable, offsets deleted by retention: see docs/RUNBOOK.md), then submit the job
   again with the same config: `spark-submit --class io.tributary.launcher.Tributary tributary.jar bronze --config
   lakehouse.conf`. It resumes from its checkpoint, exactly once; nothing is lost or duplicated.
3. On Kubernetes or YARN, let the cluster restart the driver (restartPolicy: OnFailure /
   spark.yarn.maxAppAttempts); the stream resumes the same way.
"""

with DAG(
    dag_id="tributary_streams",
    description="Bronze and silver streams alive and caught up",
    doc_md=DOC,
    schedule="*/10 * * * *",
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,
    default_args=DEFAULT_ARGS,
    tags=["tributary", "streams", "monitoring"],
) as dag:
    SparkSubmitOperator(
        task_id="check_streams",
        conn_id=SPARK_CONNECTION,
        application=TRIBUTARY_JAR,
        java_class=MAIN_CLASS,
        conf=SPARK_CONF,
        application_args=["status", "--config", TRIBUTARY_CONFIG, "--max-idle", "15m"],
    )
