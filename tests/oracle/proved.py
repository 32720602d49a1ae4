"""The package's copy of what the oracle suites prove: ``harness/platforms/n8n/descriptions/proved.json``.

    python -m tests.oracle.proved --write     # after `python -m tests.oracle.conformance --write`

The estate table (``cutover scaffold``) says per node whether its type and version is proved by
the real n8n; the package must not read ``tests/`` at run time, so this writes the proved
(type, version) pairs of every oracle suite into the package: the conformance tables
(``conformance.json``, ``code_conformance.json``: versions whose status is ``proved``) and the
suites that hold every case they run to "translated and equal" (HTTP Request, the data nodes,
Wait and Execution Data, Execute Workflow, RSS Read, Send Email, Postgres, Data Table, the AI nodes,
Respond to Webhook, Execute Command, Read Binary File, Read/Write Files from Disk, SSH: every
version they run; Data Table v1.1 and the newer AI versions on n8n ``runner.NEWER``). An app node is
proved per operation, not per version: ``operations`` holds (type -> typeVersion -> resource.operation)
of every app case that ``test_app_conformance.py`` holds to "translated, the same requests and the same
items" (``app_oracle`` cases but those marked ``differs``, and Telegram's ``app_cases``).
``tests/unit/test_n8n_proved_table.py`` fails when the copy and the suites disagree.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PACKAGE_TABLE = HERE.parents[1] / "harness" / "platforms" / "n8n" / "descriptions" / "proved.json"
COMMAND = "python -m tests.oracle.proved --write"


def _add(out: dict[str, set[float]], node_type: str, version: float) -> None:
    out.setdefault(node_type, set()).add(float(version))


def table() -> dict[str, Any]:
    """Return the proved (type, version) pairs of every oracle suite, as the package stores them."""
    from tests.oracle import convert_cases
    from tests.oracle import (
        data_cases, datatable_cases, email_cases, feed_cases, http_cases, respond_cases, shell_cases, sql_cases,
        sub_cases, wait_data_cases,
    )

    proved: dict[str, set[float]] = {}
    sources: dict[str, str] = {}
    for name in ("conformance.json", "code_conformance.json"):
        document = json.loads((HERE / name).read_text(encoding="utf-8"))
        sources[name] = document["n8n"]
        for row in document["nodes"].values():
            if row.get("status") == "proved":
                _add(proved, row["type"], row["version"])
    for version in http_cases.VERSIONS:
        _add(proved, "n8n-nodes-base.httpRequest", version)
    for node_type, versions, _ in [*data_cases.DATA_NODES, *wait_data_cases.NODES]:
        for version in versions:
            _add(proved, node_type, version)
    for version in convert_cases.VERSIONS:  # Convert to File: every case's items and files equal (test_convert_conformance)
        _add(proved, convert_cases.NODE, version)
    for case in sub_cases.sub_cases():
        _add(proved, "n8n-nodes-base.executeWorkflow", case.version)
    for version in feed_cases.VERSIONS:  # RSS Read: every case translated and equal (test_feed_conformance)
        _add(proved, "n8n-nodes-base.rssFeedRead", version)
    for version in email_cases.VERSIONS_PROVED[1]:  # Send Email v1, v2 (test_email_conformance)
        _add(proved, email_cases.VERSIONS_PROVED[0], version)
    for case, _ in sql_cases.sql_cases():  # Postgres v2 … 2.6: every case translated and equal (test_sql_conformance)
        _add(proved, case.node_type, case.version)
    for case, _, _ in datatable_cases.datatable_cases():  # Data Table v1 (test_datatable_conformance)
        _add(proved, case.node_type, case.version)
    for case in respond_cases.respond_cases():  # Respond to Webhook v1 … v1.5: every answer equal (test_respond_conformance)
        if case.version is not None:
            _add(proved, respond_cases.NODE, case.version)
    for node_type in (shell_cases.EXEC, shell_cases.READ, shell_cases.FILES_NODE, shell_cases.SSH):  # v1 each (test_shell_conformance)
        _add(proved, node_type, 1)
    from tests.oracle.test_ai_conformance import CASES as AI_CASES  # every case translated and equal
    from tests.oracle.test_ai_v2_conformance import CASES as AI_V2_CASES  # on n8n runner.NEWER, likewise
    from tests.oracle.ai_azure_cases import CASES as AZURE_CASES, V2_CASES as AZURE_V2  # test_ai_azure_conformance

    for case, subs, _ in [*AI_CASES, *AI_V2_CASES, *AZURE_CASES, *AZURE_V2]:  # the AI roots and the sub-nodes they ran with
        _add(proved, case.node_type, case.version)
        for sub in subs:
            _add(proved, sub["type"], sub["typeVersion"])
    from tests.oracle import runner
    from tests.oracle.datatable_v2_cases import datatable_v2_cases

    for case, _, _ in datatable_v2_cases():  # Data Table v1.1 on n8n runner.NEWER (test_datatable_v2_conformance)
        _add(proved, case.node_type, case.version)
    # Slack v2.5 (test_slack_v2_conformance) is not listed: its cases run user.lookupByEmail only, and this
    # table proves a (type, version) for every operation of it (message.post v2.5 was not run).
    return {"regenerate": COMMAND, "n8n": sorted(set(sources.values()) | {runner.VERSION, runner.NEWER}),
            "operations": operations(),
            "suites": ["conformance.json", "code_conformance.json", "http_cases.py", "data_cases.py",
                       "wait_data_cases.py", "sub_cases.py", "feed_cases.py", "email_cases.py", "sql_cases.py",
                       "datatable_cases.py", "test_ai_conformance.py", "app_cases.py", "app_cases_*.py",
                       "respond_cases.py", "shell_cases.py", "convert_cases.py", "calendar_cases.py",
                       "datatable_v2_cases.py", "test_ai_v2_conformance.py",
                       "ai_azure_cases.py"],
            "proved": {t: sorted(v) for t, v in sorted(proved.items())}}


def operations() -> dict[str, dict[str, list[str]]]:
    """Return the app operations the app suites prove: type -> typeVersion (``1.2``) -> [resource.operation]."""
    from tests.oracle import app_cases, app_oracle

    found: dict[str, dict[str, set[str]]] = {}

    def add(node_type: str, version: float, operation: str) -> None:
        found.setdefault(node_type, {}).setdefault(f"{float(version):g}", set()).add(operation)

    for case in app_oracle.all_cases():
        if not case.differs and not case.refused:
            add(case.node_type, case.version, case.operation())
    from tests.oracle import calendar_cases  # run with a workflow timezone (test_calendar_conformance)

    for case in calendar_cases.CASES:
        add(case.node_type, case.version, case.operation())
    for version, operation in app_cases.PROVED:
        add("n8n-nodes-base.telegram", version, operation)
    return {t: {v: sorted(ops) for v, ops in sorted(versions.items())} for t, versions in sorted(found.items())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {PACKAGE_TABLE}")
    args = parser.parse_args()
    text = json.dumps(table(), indent=1) + "\n"
    if args.write:
        PACKAGE_TABLE.write_text(text, encoding="utf-8")
    print(text, end="")


if __name__ == "__main__":
    main()
