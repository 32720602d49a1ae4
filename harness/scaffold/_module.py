"""What every scaffold produces, whatever the tool: the ``Scaffold`` value, its rows, the module itself.

Each platform's translator (``harness.platforms.<tool>.translate``) builds the statements of its
automation's body (``ast`` nodes, ``harness.scaffold._code``) and hands them to ``module_source``,
the one assembly of a generated module: the digest line that tells a generated file from one a
person edited, the docstring, the imports, the credential reader and the ``@automation``
function. Step names (``slug``, ``unique``) are shared too.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from harness.scaffold import _credential
from harness.scaffold._code import call, docstring, lit, render, stmts
from harness.scaffold._credential import Credential

HEADER = "# cutover-scaffold: sha256="


@dataclass(frozen=True)
class NodeRow:
    """One line of the scaffold's table: a node and what became of it."""

    node: str
    type: str
    status: str  # translated | todo | trigger | not reached | note
    why: str = ""


W = TypeVar("W")  # what was scaffolded: an n8n Workflow, a Make Blueprint


@dataclass
class Scaffold(Generic[W]):
    """What scaffolding one workflow (or, as ``MakeScaffold``, one Make scenario) produced."""

    unit: ClassVar[str] = "node"  # what the scaffold's tables count, and what was scaffolded
    kind: ClassVar[str] = "workflow"
    # The tool's pinned-proof table (``harness/platforms/<tool>/proved.json``, written by
    # ``python -m tests.conformance.proved --write``): the module types whose translation the
    # tool's conformance cases (its documented behaviour, pinned in tests/conformance/<tool>/) prove.
    pinned_tool: ClassVar[str | None] = None

    automation: str
    workflow: W
    source: str
    steps: dict[str, str]
    decisions: dict[str, str]
    rows: list[NodeRow]
    proposals: dict[str, str] = field(default_factory=dict)
    trigger_kind: str = "manual"
    schedule: dict[str, Any] | None = None
    error_automation: str | None = None  # started when a job fails for good (n8n's errorWorkflow setting)
    credentials: list[Credential] = field(default_factory=list)  # now read from the environment
    missing: dict[str, str] = field(default_factory=dict)  # automations it calls, not scaffolded -> their workflow

    @property
    def translated(self) -> int:
        """Return how many nodes (modules) were translated (the trigger included)."""
        return sum(1 for r in self.rows if r.status in ("translated", "trigger"))

    @property
    def todo(self) -> int:
        """Return how many nodes (modules) are left for a person."""
        return sum(1 for r in self.rows if r.status == "todo")

    @property
    def not_reached(self) -> int:
        """Return how many nodes never run: disabled, or with no path from the trigger."""
        return sum(1 for r in self.rows if r.status == "not reached")

    @property
    def notes(self) -> int:
        """Return how many rows are sticky notes (canvas comments, never run)."""
        return sum(1 for r in self.rows if r.status == "note")

    def proof(self, row: NodeRow) -> str:
        """Return what proves a translated row: ``pinned`` (its type is in the tool's pinned table),
        ``shadow`` (a call: the shadow run replays it) or ``none``."""
        if self.pinned_tool and row.type in pinned_types(self.pinned_tool):
            return "pinned"
        return "shadow" if self.steps.get(row.node) else "none"

    @property
    def whole(self) -> bool:
        """Return whether nothing is left for a person (no TODO, no automation it calls missing)."""
        return self.todo == 0 and not self.missing


@functools.cache
def pinned_types(tool: str) -> frozenset[str]:
    """Return the module (step) types ``harness/platforms/<tool>/proved.json`` lists as proved by pinned cases."""
    path = Path(__file__).resolve().parent.parent / "platforms" / tool / "proved.json"
    if not path.is_file():
        return frozenset()
    return frozenset(json.loads(path.read_text(encoding="utf-8")).get("types", {}))


def slug(name: str) -> str:
    """Return a step name for a node name: lower case, words joined by dashes."""
    text = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return text or "node"


def unique(name: str, taken: set[str]) -> str:
    """Return ``name``, or ``name-2``, ``name-3``… the first not in ``taken`` (which it joins)."""
    step = name
    candidate, n = step, 2
    while candidate in taken:
        candidate, n = f"{step}-{n}", n + 1
    taken.add(candidate)
    return candidate


def registry_takes(name: str) -> bool:
    from queue_core import automation

    try:
        return name in inspect.signature(automation).parameters
    except (TypeError, ValueError):
        return False


@dataclass(frozen=True)
class Tool:
    """How a tool's generated modules differ: the words of their docstrings and the runtime they import."""

    command: str  # cutover scaffold <command>
    intro: tuple[str, ...]  # the docstring's first paragraph; {automation} and {name} are filled in
    schedule_from: str  # "the workflow's trigger"
    run: str  # the function's docstring; {name} is filled in
    runtime: str  # the queue_core.compat module: n8n, make
    start: str  # the statement that opens the run (flow = n8n.Flow(ctx))
    finish: str  # the statement that closes it
    imports: tuple[str, ...] = ()  # more imports of the module (from typing import Any)


def module_source(scaffold: Scaffold[Any], tool: Tool, body: list[ast.stmt], name: str) -> str:
    """Return the whole source of a scaffolded module: digest line, docstring, imports, the function.

    ``name`` is the workflow's (scenario's) name; ``body`` the statements the translator built.
    """
    function = re.sub(r"\W+", "_", scaffold.automation).strip("_") or "automation"
    intro = [line.format(automation=scaffold.automation, name=repr(name)) for line in tool.intro]
    schedule = _schedule_line(scaffold.schedule, tool) if scaffold.schedule else None
    doc = module_docstring(intro, schedule=schedule, unit=scaffold.unit,
                           todo=[r for r in scaffold.rows if r.status == "todo"], proposals=scaffold.proposals,
                           credentials=scaffold.credentials)
    reader = credential_reader(scaffold.credentials)
    core = ["Context", "TerminalError", "Trigger", "automation"] if reader else ["Context", "Trigger", "automation"]
    imports = [*(["import os"] if reader else []), *tool.imports]
    decorator = call("automation", scaffold.automation, version=1)
    if scaffold.error_automation:
        decorator.keywords.append(ast.keyword("error_automation", ast.Constant(scaffold.error_automation)))
    if scaffold.schedule and registry_takes("schedule"):
        cron = scaffold.schedule["cron"]
        decorator.keywords.append(ast.keyword("schedule", lit(tuple(cron) if isinstance(cron, list) else cron)))
        if scaffold.schedule.get("timezone"):
            decorator.keywords.append(ast.keyword("timezone", ast.Constant(scaffold.schedule["timezone"])))
    run = stmts("@$decorator\nasync def $function(ctx: Context, trigger: Trigger) -> None:\n"
                "    $doc\n    $start\n    $body\n    $finish", decorator=decorator, function=function,
                doc=ast.Expr(ast.Constant(tool.run.format(name=repr(name)))), start=stmts(tool.start),
                body=body or stmts("pass"), finish=stmts(tool.finish))
    runtime = ast.ImportFrom("queue_core.compat", [ast.alias(tool.runtime)], 0)
    sections = [docstring(doc), "from __future__ import annotations", *(["\n".join(imports)] if imports else []),
                "\n".join([render([ast.ImportFrom("queue_core", [ast.alias(n) for n in core], 0)]), render([runtime])])]
    text = "\n\n".join(sections) + "\n\n\n" + "".join(f"{render(reader)}\n\n\n" if reader else "") + render(run)
    text = text.rstrip() + "\n"
    return f"{HEADER}{digest(text)}\n{text}"


def _schedule_line(schedule: dict[str, Any], tool: Tool) -> str:
    cron = schedule["cron"]
    crons = ", ".join(cron) if isinstance(cron, list) else cron
    zone = f" in {schedule['timezone']}" if schedule.get("timezone") else ""
    return f"Schedule: {crons}{zone} (from {tool.schedule_from})."


def module_docstring(intro: list[str], *, schedule: str | None, unit: str, todo: list[NodeRow],
                     proposals: dict[str, str], credentials: list[Credential] | None = None) -> str:
    """Return a scaffolded module's docstring: ``intro``, the schedule, what is left to write (each
    ``unit``, node or module, that fails the run until written), the credentials now read from the
    environment and the providers to configure; never two blank lines in a row."""
    doc = [*intro, ""]
    if schedule:
        doc.append(schedule)
    if todo:
        doc += [f"Left to write by hand (each fails the run, naming the {unit}, until written):"]
        doc += [f"- {r.node}: {r.why}" for r in todo]
    if credentials:
        doc += ["", "Credentials the workflow held in clear, now read from the environment (never written here):"]
        doc += [f"- {line}" for line in credential_lines(credentials)]
    auth = _credential.auth_envs(credentials or [])
    if proposals:
        doc += ["", "Providers to configure in pyproject.toml (proposed for hosts with none):"]
        for provider, base in sorted(proposals.items()):
            doc += [f"    [tool.cutover.providers.{provider}]", f'    base_url = "{base}"']
            doc += [f'    auth_env = "{auth[provider]}"'] if provider in auth else []
            doc += [f'    dsn_env = "{provider.upper()}_URL"'] if base.startswith(("sql://", "smtp://", "ssh://")) else []  # a database, a mail server, a host
    configured = sorted(set(auth) - set(proposals))
    if configured:
        doc += ["", "Providers configured already: add auth_env to their table in pyproject.toml:"]
        doc += [f'    [tool.cutover.providers.{provider}] auth_env = "{auth[provider]}"' for provider in configured]
    doc.append('"""')  # where the closing quotes stand
    kept = [line for i, line in enumerate(doc) if line or (i + 1 < len(doc) and doc[i + 1])]
    return "\n".join(kept[:-1]) + "\n"


def credential_lines(credentials: list[Credential]) -> list[str]:
    """Return one line per credential (each variable once): the variable to set and where it was."""
    seen: dict[str, str] = {}
    for found in credentials:
        line = found.line() + (f"; {found.how}" if found.how else "; the provider sends it as Authorization: Bearer "
                               "(auth_env)" if found.bearer else "; the module reads it when it calls")
        seen.setdefault(found.env, line)
    return list(seen.values())


def credential_reader(credentials: list[Credential]) -> list[ast.stmt]:
    """Return the ``credential`` function's statements when a call reads one, else []."""
    if all(c.bearer for c in credentials):
        return []
    return stmts(_credential.HELPER)


def digest(text: str) -> str:
    """Return the short digest recorded in a generated file's first line."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def edited(existing: str) -> bool:
    """Return whether a generated file was changed by a person since it was written."""
    first, _, rest = existing.partition("\n")
    if not first.startswith(HEADER):
        return True
    return first[len(HEADER):].strip() != digest(rest)
