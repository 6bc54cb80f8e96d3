"""Checks every DAG in airflow-dags/ without Airflow (it cannot be installed here): parsed with ast, checked
against the conventions, and every spark-submit call replayed against the real jar's validation mode.

Run by AirflowDagsIT (mvn verify) with TRIBUTARY_JAR (the shaded jar) and TRIBUTARY_CONFIG (a lakehouse config)
in the environment; or by hand: TRIBUTARY_JAR=... TRIBUTARY_CONFIG=conf/application.conf python3 -m unittest
discover -s airflow-dags/tests.
"""

import ast
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import unittest

from croniter import croniter

DAGS = pathlib.Path(__file__).resolve().parent.parent
SETTINGS = DAGS / "tributary_settings.py"
PRESETS = {"@once", "@hourly", "@daily", "@weekly", "@monthly", "@quarterly", "@yearly", "@continuous"}
# Calls that touch files, the network, processes or Airflow's metadata database: none at module top level.
FORBIDDEN_AT_TOP = {"open", "getenv", "get", "listdir", "walk", "run", "Popen", "check_output", "connect", "urlopen",
                    "read_text", "read_bytes", "exists", "glob", "sleep"}
ALLOWED_AT_TOP = {"datetime", "join", "Param", "DAG", "SparkSubmitOperator", "BranchPythonOperator",
                  "PythonOperator", "EmptyOperator"}


def dag_files():
    return sorted(path for path in DAGS.glob("*.py") if path.name != SETTINGS.name)


def constants(tree, known=None):
    """Module-level NAME = <literal> assignments, evaluated (names refer to earlier constants)."""
    values = dict(known or {})
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "tributary_settings":
            settings = constants(ast.parse(SETTINGS.read_text()))
            for alias in node.names:
                values[alias.asname or alias.name] = settings[alias.name]
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                values[node.targets[0].id] = evaluate(node.value, values)
            except ValueError:
                pass
    return values


def evaluate(node, values):
    """A literal, a known name, a list or dict of those, or " ".join([...]) of strings."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in values:
            raise ValueError("unknown name " + node.id)
        return values[node.id]
    if isinstance(node, ast.List):
        return [evaluate(item, values) for item in node.elts]
    if isinstance(node, ast.Dict):
        return {evaluate(k, values): evaluate(v, values) for k, v in zip(node.keys, node.values)}
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join"
            and isinstance(node.func.value, ast.Constant)):
        return node.func.value.value.join(evaluate(node.args[0], values))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Param":
        return evaluate(node.args[0], values) if node.args else None
    raise ValueError("not a constant: " + ast.dump(node)[:80])


def call_name(call):
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def dag_call(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.With):
            for item in node.items:
                if isinstance(item.context_expr, ast.Call) and call_name(item.context_expr) == "DAG":
                    return item.context_expr
    raise AssertionError("no `with DAG(...)` block")


def keywords(call, values):
    found = {}
    for keyword in call.keywords:
        try:
            found[keyword.arg] = evaluate(keyword.value, values)
        except ValueError:
            found[keyword.arg] = keyword.value
    return found


def spark_submits(tree, values):
    """(task_id, keywords) of every SparkSubmitOperator call."""
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and call_name(node) == "SparkSubmitOperator":
            found = keywords(node, values)
            calls.append((found["task_id"], found))
    return calls


TEMPLATE = re.compile(r"\{\{\s*(.*?)\s*\}\}")


def render(text, params, config):
    """Renders the templates the DAGs use; any other template is an error, so a new one gets a test."""
    def one(match):
        expression = match.group(1)
        if expression == "ds":
            return "2026-11-30"
        if expression == "macros.ds_add(ds, -2)":
            return "2026-11-28"
        if expression.startswith("params."):
            return str(params[expression[len("params."):]])
        if expression.startswith("var.value.get('tributary_config'"):
            return config
        if expression.startswith("var.value.get('tributary_jar'"):
            return os.environ["TRIBUTARY_JAR"]
        raise AssertionError("a template the test does not know: {{ " + expression + " }}")
    return TEMPLATE.sub(one, text)


def validate(arguments):
    """Runs the jar's validation mode; returns (exit code, stdout + stderr)."""
    java = os.environ.get("JAVA", "java")
    # spark-submit puts Spark's own jars next to the application jar; TRIBUTARY_CLASSPATH is that classpath.
    classpath = os.environ.get("TRIBUTARY_CLASSPATH", os.environ["TRIBUTARY_JAR"])
    process = subprocess.run([java, "-cp", classpath, "io.tributary.launcher.Tributary",
                              "validate"] + arguments, capture_output=True, text=True, timeout=120,
                             cwd=os.environ.get("TRIBUTARY_REPO", str(DAGS.parent)))
    return process.returncode, process.stdout + process.stderr


def branch(tree, params):
    """Runs the DAG's branch callable (a plain function of the params) without Airflow."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "choose_task":
            namespace = {}
            exec(compile(ast.Module(body=[node], type_ignores=[]), "choose_task", "exec"), namespace)
            return namespace["choose_task"](params)
    return None


def calls_of(path, param_sets):
    """Every spark-submit call of a DAG file, rendered: [(task_id, [application args], keywords)]."""
    tree = ast.parse(path.read_text())
    values = constants(tree)
    dag = keywords(dag_call(tree), values)
    defaults = {name: value for name, value in (dag.get("params") or {}).items()} if isinstance(
        dag.get("params"), dict) else {}
    rendered = []
    for task_id, found in spark_submits(tree, values):
        params = dict(defaults)
        params.update(param_sets.get(task_id, {}))
        arguments = [render(argument, params, os.environ["TRIBUTARY_CONFIG"]) for argument in found["application_args"]]
        rendered.append((task_id, arguments, found))
    return rendered


# Params a manual trigger gives, per branch of the rebuild DAG.
REBUILD_PARAMS = {
    "rebuild_silver_table": {"table": "silver.orders", "from_snapshot": ""},
    "rebuild_silver_from_snapshot": {"table": "silver.orders", "from_snapshot": "4870319571394016437"},
    "rebuild_gold_table": {"table": "gold.daily_revenue", "from_date": "2026-11-01", "to_date": "2026-11-30"},
}


class DagConventions(unittest.TestCase):
    def test_there_are_dags(self):
        self.assertEqual({"tributary_gold.py", "tributary_maintenance.py", "tributary_rebuild.py",
                          "tributary_streams.py"}, {path.name for path in dag_files()})

    def test_each_dag_follows_the_conventions(self):
        for path in dag_files():
            with self.subTest(dag=path.name):
                tree = ast.parse(path.read_text())
                values = constants(tree)
                calls = [node for node in ast.walk(tree) if isinstance(node, ast.With)
                         and any(isinstance(i.context_expr, ast.Call) and call_name(i.context_expr) == "DAG"
                                 for i in node.items)]
                self.assertEqual(1, len(calls), "one DAG per file")
                dag = keywords(dag_call(tree), values)
                self.assertEqual(path.stem, dag["dag_id"], "dag_id is the file name")
                self.assertIsInstance(dag.get("doc_md"), str)
                self.assertGreater(len(dag["doc_md"].strip()), 100, "doc_md explains the DAG")
                self.assertIn("catchup", dag, "catchup is explicit")
                self.assertIsInstance(dag["catchup"], bool)
                self.assertTrue(dag.get("tags"), "tags")
                self.assertIn("schedule", dag, "schedule is explicit")
                schedule = dag["schedule"]
                if schedule is not None:
                    self.assertTrue(schedule in PRESETS or croniter.is_valid(schedule), "schedule " + schedule)
                self.assertGreaterEqual(dag["default_args"].get("retries", 0), 2, "retries >= 2")

    def test_no_io_at_module_top_level(self):
        for path in dag_files() + [SETTINGS]:
            with self.subTest(file=path.name):
                tree = ast.parse(path.read_text())
                for statement in tree.body:
                    if isinstance(statement, (ast.FunctionDef, ast.Import, ast.ImportFrom)):
                        continue
                    for node in ast.walk(statement):
                        if isinstance(node, ast.FunctionDef):
                            break
                        if isinstance(node, ast.Call):
                            name = call_name(node)
                            self.assertNotIn(name, FORBIDDEN_AT_TOP, "I/O at top level: " + ast.unparse(node))
                            self.assertIn(name, ALLOWED_AT_TOP | {"choose_task"},
                                          "an unexpected call at top level: " + ast.unparse(node)[:80])
                        if isinstance(node, ast.Attribute) and node.attr == "environ":
                            self.fail("the environment read at parse time: " + ast.unparse(node))

    def test_every_spark_submit_uses_the_jar_and_its_entry_point(self):
        for path in dag_files():
            for task_id, arguments, found in calls_of(path, REBUILD_PARAMS):
                with self.subTest(dag=path.name, task=task_id):
                    self.assertEqual("io.tributary.launcher.Tributary", found["java_class"])
                    self.assertIn("tributary_jar", found["application"])
                    self.assertTrue(all(key.startswith("spark.") for key in found["conf"]), found["conf"])
                    self.assertIn("--add-opens=java.base/java.nio=ALL-UNNAMED",
                                  found["conf"]["spark.driver.extraJavaOptions"])

    def test_the_rebuild_dag_branches_by_table(self):
        tree = ast.parse((DAGS / "tributary_rebuild.py").read_text())
        for task_id, params in REBUILD_PARAMS.items():
            self.assertEqual(task_id, branch(tree, params))


class SparkSubmitCallsAgainstTheJar(unittest.TestCase):
    def test_the_jar_accepts_every_call(self):
        count = 0
        for path in dag_files():
            for task_id, arguments, _ in calls_of(path, REBUILD_PARAMS):
                with self.subTest(dag=path.name, task=task_id, arguments=" ".join(arguments)):
                    code, output = validate(arguments)
                    self.assertEqual(0, code, output)
                    self.assertIn("valid: tributary " + arguments[0], output)
                    count += 1
        self.assertGreaterEqual(count, 6)

    def test_a_wrong_argument_in_a_copy_of_a_dag_is_rejected_with_the_jars_message(self):
        with tempfile.TemporaryDirectory() as folder:
            copy = pathlib.Path(folder) / "tributary_gold.py"
            shutil.copy(DAGS / "tributary_gold.py", copy)
            copy.write_text(copy.read_text().replace('"--from", "{{ macros.ds_add(ds, -2) }}"',
                                                     '"--form", "{{ macros.ds_add(ds, -2) }}"'))
            [(task_id, arguments, _)] = calls_of(copy, {})
            code, output = validate(arguments)
            self.assertEqual(2, code, output)
            self.assertIn("'gold': unknown option --form", output)

    def test_a_wrong_config_key_is_rejected_naming_the_key(self):
        with tempfile.TemporaryDirectory() as folder:
            config = pathlib.Path(folder) / "bad.conf"
            config.write_text(pathlib.Path(os.environ["TRIBUTARY_CONFIG"]).read_text()
                              + '\ntributary.maintenance.defaults.target-file-size = "huge"\n')
            code, output = validate(["maintain", "--config", str(config)])
            self.assertEqual(2, code, output)
            self.assertIn("Invalid configuration", output)
            self.assertIn("target-file-size: must be a size such as '128MiB' or '512KiB', got 'huge'", output)


if __name__ == "__main__":
    unittest.main()
