"""Run workflows in the real n8n, many at once, and read back every node's output items.

``run(documents)`` imports every workflow into a fresh n8n instance (``n8n import:workflow
--separate --input DIR``) and runs them all in one ``n8n execute-batch --ids … --snapshot DIR``
process: a snapshot holds the finished execution's ``runData``, i.e. every node's output items
per output index; a failed run's result names the node it stopped at (``… on node X``).

Each run gets its own n8n user folder (a temporary directory: settings, encryption key, logs)
and its own Postgres database (created and dropped here), so runs never share state; telemetry,
version checks, templates and every other outbound call are switched off. n8n is installed by
``tests/oracle/install.sh`` into ``$CUTOVER_ORACLE_DIR`` (by default
``~/.cache/cutover/n8n-<version>``), never into the repository or onto PATH.

Two n8n versions are oracles: ``VERSION`` (every case's, unless it names another) and ``NEWER``
(``CUTOVER_N8N_VERSION=2.41.1 tests/oracle/install.sh``, in ``$CUTOVER_ORACLE_DIR_2`` or the
cache), for the node versions only newer n8n has: 2.41.1 is the newest n8n whose dependencies the npm
registry all has here (2.41.3 names @n8n/agents 0.26.2 and @n8n/n8n-nodes-langchain 2.41.2, which it lacks). Every function here takes ``version=`` (one of
``VERSIONS``); a case names its n8n in ``Case.n8n`` and ``conformance.measure`` runs each version's
cases in that n8n. What n8n 2.x needs besides (``_environment``): Node >= 24 (``install.sh`` adds it
where the machine's is older, ``node_bin``: first on PATH for 2.x runs); its Code node task runner, on
by default and launched as a child process, gets a broker port of its own per run (two runs on
the default 5679 would clash), and ``N8N_BLOCK_ENV_ACCESS_IN_NODE`` keeps 1.x's default (false).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict

from tests.oracle.outcome import Outcome

VERSION = "1.123.81"
NEWER = "2.41.1"  # the second oracle: node versions 1.123.81 does not have (dataTable v1.1, slack v2.5, ...)
VERSIONS = (VERSION, NEWER)
INSTALL = "tests/oracle/install.sh"
_DIR_ENV = {VERSION: "CUTOVER_ORACLE_DIR", NEWER: "CUTOVER_ORACLE_DIR_2"}
ROOT = Path(__file__).resolve().parents[2]


def install_dir(version: str = VERSION) -> Path:
    """Return where ``install.sh`` puts n8n ``version`` (``$CUTOVER_ORACLE_DIR`` for ``VERSION``,
    ``$CUTOVER_ORACLE_DIR_2`` for ``NEWER``, else the user's cache)."""
    given = os.environ.get(_DIR_ENV.get(version, ""))
    if given:
        return Path(given)
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "cutover" / f"n8n-{version}"


def n8n_binary(version: str = VERSION) -> Path:
    """Return the installed n8n's command (it may not exist)."""
    return install_dir(version) / "node_modules" / ".bin" / "n8n"


def install_command(version: str = VERSION) -> str:
    """Return the command that installs n8n ``version``."""
    return INSTALL if version == VERSION else f"CUTOVER_N8N_VERSION={version} {INSTALL}"


def missing(version: str = VERSION) -> str | None:
    """Return why the oracle cannot run here (None: it can): no node, no npm, n8n not installed."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        return ("the n8n oracle needs Node.js (>= 20) and npm, not found on PATH; "
                f"install them, then run {install_command(version)}")
    marker = install_dir(version) / ".installed"
    if not n8n_binary(version).exists() or not marker.exists() or marker.read_text().strip() != version:
        return (f"n8n {version} is not installed in {install_dir(version)}; run {install_command(version)} "
                "(about 5 minutes and 1.8 GB, from the npm registry)")
    return None


def node_bin(version: str = VERSION) -> Path | None:
    """Return the directory of the Node that n8n ``version`` runs on when it is not the machine's: the Node 24
    ``install.sh`` adds to a 2.x install where the machine's node is older (None: the machine's)."""
    for found in sorted((install_dir(version) / "node_modules").glob("node-linux-*/bin/node")):
        return found.parent
    return None


def major(version: str) -> int:
    """Return n8n ``version``'s major number (``2.41.1`` → 2)."""
    return int(version.split(".", 1)[0])


def free_port() -> int:
    """Return a loopback TCP port free right now (a server's, a task broker's)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class Database:
    """Where the oracle's n8n keeps its state: a Postgres server and a fresh database name."""

    host: str
    port: str
    user: str
    password: str
    admin_url: str  # a database on the server to connect to for CREATE/DROP DATABASE

    @classmethod
    def from_env(cls) -> Database:
        """Read the server from ``DATABASE_URL`` (else postgres@127.0.0.1:5432)."""
        url = os.environ.get("DATABASE_URL") or "postgresql://postgres@127.0.0.1:5432/postgres"
        parts = conninfo_to_dict(url)
        return cls(str(parts.get("host") or "127.0.0.1"), str(parts.get("port") or "5432"),
                   str(parts.get("user") or "postgres"), str(parts.get("password") or ""), url)


def _environment(folder: Path, database: Database, name: str, version: str = VERSION) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("N8N_", "DB_"))}
    env.update({
        "N8N_USER_FOLDER": str(folder),
        "DB_TYPE": "postgresdb", "DB_POSTGRESDB_HOST": database.host, "DB_POSTGRESDB_PORT": database.port,
        "DB_POSTGRESDB_USER": database.user, "DB_POSTGRESDB_PASSWORD": database.password,
        "DB_POSTGRESDB_DATABASE": name,
        # isolated-vm (the "vm" engine) needs a native build that --ignore-scripts skips.
        "N8N_EXPRESSION_ENGINE": "legacy",
        # Nothing leaves the machine: no telemetry, no version check, no templates, no banners.
        "N8N_DIAGNOSTICS_ENABLED": "false", "N8N_VERSION_NOTIFICATIONS_ENABLED": "false",
        "N8N_TEMPLATES_ENABLED": "false", "N8N_HIRING_BANNER_ENABLED": "false",
        "N8N_PERSONALIZATION_ENABLED": "false", "N8N_COMMUNITY_PACKAGES_ENABLED": "false",
        "N8N_AI_ENABLED": "false", "EXTERNAL_FRONTEND_HOOKS_URLS": "", "N8N_LICENSE_AUTO_RENEW_ENABLED": "false",
        "N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS": "false", "N8N_LOG_LEVEL": "warn",
        "GENERIC_TIMEZONE": "UTC", "TZ": "UTC", "NO_COLOR": "1",
    })
    if major(version) >= 2:
        own = node_bin(version)  # n8n 2.x refuses Node < 24: install.sh's Node 24, first on PATH
        if own is not None:
            env["PATH"] = f"{own}{os.pathsep}{env.get('PATH', '')}"
        env.update({
            # the Code node's task runner (on by default in 2.x, a child process of n8n's): a broker port per run
            "N8N_RUNNERS_BROKER_PORT": str(free_port()), "N8N_RUNNERS_MODE": "internal",
            # 2.x blocks $env in nodes by default; 1.x (the other oracle) did not
            "N8N_BLOCK_ENV_ACCESS_IN_NODE": "false",
        })
    return env


def _admin(database: Database, statement: sql.Composable) -> None:
    with psycopg.connect(database.admin_url, autocommit=True) as conn:
        conn.execute(statement)


def workflow_id(index: int) -> str:
    """Return the n8n workflow id of the ``index``-th workflow of a run (16 characters, as n8n's)."""
    return f"oracle{index:010d}"


def _digest(document: dict[str, Any], version: str = VERSION) -> str:
    body = {k: v for k, v in document.items() if k not in ("id", "name")}
    return hashlib.sha256(f"{version}\n{json.dumps(body, sort_keys=True)}".encode()).hexdigest()


def cached_run(documents: list[dict[str, Any]], *, fresh: bool = False,
               credentials: list[dict[str, Any]] | None = None,
               version: str = VERSION) -> tuple[list[Outcome], dict[str, Any]]:
    """``run`` the documents n8n has not run before; reuse the outcomes of those it has.

    n8n's output for a workflow is a function of the workflow and n8n's version (the nodes under
    test read no clock, no network, no randomness), so an outcome is kept in the install
    directory under the digest of both and read back next time. ``fresh`` (or
    ``CUTOVER_ORACLE_FRESH=1``) runs every document again.
    """
    store = install_dir(version) / "outcomes"
    store.mkdir(exist_ok=True)
    fresh = fresh or os.environ.get("CUTOVER_ORACLE_FRESH") == "1"
    keys = [_digest(d, version) for d in documents]
    known: dict[str, Outcome] = {}
    for key in set(keys):
        path = store / f"{key}.json"
        if not fresh and path.exists():
            known[key] = Outcome(**json.loads(path.read_text(encoding="utf-8")))
    todo = [i for i, key in enumerate(keys) if key not in known]
    info: dict[str, Any] = {"cached": len(documents) - len(todo), "ran_in_n8n": len(todo)}
    if todo:
        outcomes, ran = run([documents[i] for i in todo], credentials=credentials, version=version)
        info.update(ran)
        for i, outcome in zip(todo, outcomes, strict=True):
            known[keys[i]] = outcome
            (store / f"{keys[i]}.json").write_text(json.dumps(dataclasses.asdict(outcome)), encoding="utf-8")
    return [known[key] for key in keys], info


def run(documents: list[dict[str, Any]], *, timeout: float = 900,
        credentials: list[dict[str, Any]] | None = None, version: str = VERSION) -> tuple[list[Outcome], dict[str, Any]]:
    """Run every workflow of ``documents`` in one batch of n8n ``version``; return one Outcome each, in order.

    Each document's ``id`` is replaced by ``workflow_id(i)``. The second value says how the run
    went (seconds for import and for execution, n8n's summary). Raises RuntimeError when n8n
    itself fails (not a workflow: that is an Outcome with an error).
    """
    reason = missing(version)
    if reason:
        raise RuntimeError(reason)
    database = Database.from_env()
    name = f"n8n_oracle_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="cutover-n8n-") as tmp:
        folder = Path(tmp)
        workflows, snapshots = folder / "workflows", folder / "snapshots"
        workflows.mkdir()
        snapshots.mkdir()
        ids = [workflow_id(i) for i in range(len(documents))]
        for wid, document in zip(ids, documents, strict=True):
            (workflows / f"{wid}.json").write_text(json.dumps({**document, "id": wid}), encoding="utf-8")
        env = _environment(folder / "n8n", database, name, version)
        _admin(database, sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        try:
            started = time.monotonic()
            if credentials:  # n8n encrypts a credential's plain data on import
                (folder / "credentials.json").write_text(json.dumps(credentials), encoding="utf-8")
                _n8n(["import:credentials", f"--input={folder / 'credentials.json'}"], env, timeout, version=version)
            _n8n(["import:workflow", "--separate", f"--input={workflows}"], env, timeout, version=version)
            imported = time.monotonic()
            (folder / "ids.txt").write_text(",".join(ids), encoding="utf-8")
            output = folder / "output.json"
            _n8n(["execute-batch", f"--ids={folder / 'ids.txt'}", f"--snapshot={snapshots}", f"--output={output}",
                  "--concurrency=4"], env, timeout, ok=(0, 1), version=version)
            done = time.monotonic()
            results = json.loads(output.read_text(encoding="utf-8"))
        finally:
            _admin(database, sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        by_id = {e["workflowId"]: e for e in results.get("executions", [])}
        outcomes = [_outcome(by_id.get(wid), snapshots / f"{wid}-snapshot.json") for wid in ids]
    return outcomes, {"import_seconds": round(imported - started, 1), "execute_seconds": round(done - imported, 1),
                      "summary": {k: v for k, v in results.get("summary", {}).items() if not isinstance(v, list)}}


def _n8n(args: list[str], env: dict[str, str], timeout: float, ok: tuple[int, ...] = (0,),
         version: str = VERSION) -> None:
    done = subprocess.run([str(n8n_binary(version)), *args], env=env, cwd=str(install_dir(version)), capture_output=True,
                          text=True, timeout=timeout, check=False)
    if done.returncode not in ok:
        tail = (done.stderr or done.stdout)[-2000:]
        raise RuntimeError(f"n8n {args[0]} exited {done.returncode}: {tail}")


_ON_NODE = re.compile(r" on node (?P<node>.+)$", re.S)


def _outcome(execution: dict[str, Any] | None, snapshot: Path) -> Outcome:
    if execution is None:
        return Outcome(error_node=None, error="n8n did not run this workflow")
    if execution.get("executionStatus") != "success" or not snapshot.exists():
        message = str(execution.get("error") or execution.get("executionStatus"))
        found = _ON_NODE.search(message)
        return Outcome(error_node=found.group("node") if found else None, error=message)
    data = json.loads(snapshot.read_text(encoding="utf-8"))
    run_data = data["data"]["resultData"]["runData"]
    nodes: dict[str, list[list[Any]]] = {}
    binary: dict[str, list[list[Any]]] = {}
    for node, tasks in run_data.items():
        task = tasks[-1]  # every node here runs once; a node that ran again keeps its last run
        main = (task.get("data") or {}).get("main") or []
        nodes[node] = [[item.get("json") for item in (output or [])] for output in main]
        if any(item.get("binary") for output in main for item in (output or [])):
            binary[node] = [[item.get("binary") for item in (output or [])] for output in main]
    return Outcome(nodes=nodes, binary=binary)
