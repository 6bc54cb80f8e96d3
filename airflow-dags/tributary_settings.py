"""Settings shared by the Tributary DAGs: where the jar and the lakehouse config are, and Spark's settings.

Nothing here reads a file, the network or the environment when the scheduler parses the DAGs: every value is a
Jinja template, rendered when a task runs, from Airflow Variables (set them with
``airflow variables set tributary_jar /opt/tributary/tributary.jar`` and ``tributary_config``), falling back to
the paths below.
"""

# The shaded jar built by `mvn -B package` (launcher/target/tributary-<version>.jar), copied where the workers see it.
TRIBUTARY_JAR = "{{ var.value.get('tributary_jar', '/opt/tributary/tributary.jar') }}"

# The lakehouse config (catalog, Kafka, sources, entities, gold, maintenance), e.g. conf/cluster-example.conf.
TRIBUTARY_CONFIG = "{{ var.value.get('tributary_config', '/opt/tributary/lakehouse.conf') }}"

# The jar's single entry point; its first argument is the subcommand.
MAIN_CLASS = "io.tributary.launcher.Tributary"

# The Airflow connection of the Spark cluster (spark://, yarn, k8s://).
SPARK_CONNECTION = "spark_default"

# Spark on Java 17 needs these; Iceberg's Arrow reader needs java.nio open. HotSpot leaves methods over 8,000
# bytes of bytecode uncompiled unless told otherwise, and Spark generates such methods for wide silver decodes.
JAVA_OPTIONS = " ".join([
    "-XX:-DontCompileHugeMethods",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.util=ALL-UNNAMED",
    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
])

SPARK_CONF = {
    "spark.driver.extraJavaOptions": JAVA_OPTIONS,
    "spark.executor.extraJavaOptions": JAVA_OPTIONS,
}

DEFAULT_ARGS = {
    "owner": "data-engineering",
    "retries": 2,
}
