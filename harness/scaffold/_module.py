"""What every scaffold produces, whatever the tool: the ``Scaffold`` value, its rows, the module's docstring.

Each platform's translator (``harness.platforms.<tool>.translate``) fills a ``Scaffold`` with
the source it generated; this module holds what they share: step names (``slug``, ``unique``),
the docstring, the credential reader, and the digest line that tells a generated file from one a
person edited.
"""

from __future__ import annotations

import hashlib
import inspect
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from harness.scaffold import _credential
from harness.scaffold._credential import Credential

HEADER = "# cutover-scaffold: sha256="


@dataclass(frozen=True)
class NodeRow:
    """One line of the scaffold's table: a node and what became of it."""

    node: str
    type: str
    status: str  # translated | todo | trigger | not reached
    why: str = ""


W = TypeVar("W")  # what was scaffolded: an n8n Workflow, a Make Blueprint


@dataclass
class Scaffold(Generic[W]):
    """What scaffolding one workflow (or, as ``MakeScaffold``, one Make scenario) produced."""

    unit: ClassVar[str] = "node"  # what the scaffold's tables count, and what was scaffolded
    kind: ClassVar[str] = "workflow"

    automation: str
    workflow: W
    source: str
    steps: dict[str, str]
    decisions: dict[str, str]
    rows: list[NodeRow]
    proposals: dict[str, str] = field(default_factory=dict)
    trigger_kind: str = "manual"
    schedule: dict[str, Any] | None = None
    credentials: list[Credential] = field(default_factory=list)  # now read from the environment

    @property
    def translated(self) -> int:
        """Return how many nodes (modules) were translated (the trigger included)."""
        return sum(1 for r in self.rows if r.status in ("translated", "trigger"))

    @property
    def todo(self) -> int:
        """Return how many nodes (modules) are left for a person."""
        return sum(1 for r in self.rows if r.status == "todo")


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


def module_docstring(intro: list[str], *, schedule: str | None, unit: str, todo: list[NodeRow],
                     proposals: dict[str, str], credentials: list[Credential] | None = None) -> list[str]:
    """Return the lines of a scaffolded module's docstring: ``intro``, the schedule, what is left
    to write (each ``unit``, node or module, that fails the run until written), the credentials
    now read from the environment and the providers to configure; never two blank lines in a row."""
    doc = [f'"""{intro[0]}', *intro[1:], ""]
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
        for name, base in sorted(proposals.items()):
            doc += [f"    [tool.cutover.providers.{name}]", f'    base_url = "{base}"']
            doc += [f'    auth_env = "{auth[name]}"'] if name in auth else []
    configured = sorted(set(auth) - set(proposals))
    if configured:
        doc += ["", "Providers configured already: add auth_env to their table in pyproject.toml:"]
        doc += [f'    [tool.cutover.providers.{name}] auth_env = "{auth[name]}"' for name in configured]
    doc.append('"""')
    return [line for i, line in enumerate(doc) if line or (i + 1 < len(doc) and doc[i + 1])]


def credential_lines(credentials: list[Credential]) -> list[str]:
    """Return one line per credential (each variable once): the variable to set and where it was."""
    seen: dict[str, str] = {}
    for found in credentials:
        line = found.line() + ("; the provider sends it as Authorization: Bearer (auth_env)" if found.bearer
                               else "; the module reads it when it calls")
        seen.setdefault(found.env, line)
    return list(seen.values())


def credential_reader(credentials: list[Credential]) -> tuple[list[str], list[str]]:
    """Return (extra imports, the ``credential`` function's lines) when a call reads one, else ([], [])."""
    if all(c.bearer for c in credentials):
        return [], []
    return ["import os", ""], [*_credential.HELPER, "", ""]


def digest(text: str) -> str:
    """Return the short digest recorded in a generated file's first line."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def edited(existing: str) -> bool:
    """Return whether a generated file was changed by a person since it was written."""
    first, _, rest = existing.partition("\n")
    if not first.startswith(HEADER):
        return True
    return first[len(HEADER):].strip() != digest(rest)
