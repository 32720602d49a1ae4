"""What translating one flow shares (``FlowBuild``), what one action's translation is (``ActionCode``),
the row type an action is named by, and the TODO of an action left to write."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from typing import Any

from harness.platforms.power_automate.definition import FlowAction, PowerAutomateFlow, obj
from harness.scaffold import _code, _credential
from harness.scaffold._code import stmts
from harness.scaffold._credential import Credential
from harness.scaffold._module import NodeRow


@dataclass
class FlowBuild:
    """What translating one flow shares: the flow, providers by host, the names chosen so far."""

    flow: PowerAutomateFlow
    providers: dict[str, str]  # host -> provider name (the project's)
    steps: dict[str, str] = field(default_factory=dict)  # action -> step name (actions that call)
    decisions: dict[str, str] = field(default_factory=dict)  # If / Switch -> decision name
    rows: list[NodeRow] = field(default_factory=list)
    functions: set[str] = field(default_factory=set)
    proposals: dict[str, str] = field(default_factory=dict)  # provider -> base URL to configure
    hosts: dict[str, str] = field(default_factory=dict)  # host -> provider, for the manifest
    credentials: list[Credential] = field(default_factory=list)


@dataclass
class ActionCode:
    """The translation of one action: its function's statements, or why it is left to write."""

    lines: list[ast.stmt]
    todo: str | None = None
    note: str = ""


NONE = "power_automate.NO_OUTPUTS"
CALLS = ("Http", "ApiConnection", "OpenApiConnection", "ApiConnectionWebhook", "OpenApiConnectionWebhook",
         "HttpWebhook", "Workflow", "Function", "ApiManagement")


def row_type(action: FlowAction, gen: FlowBuild) -> str:
    """Return the type the scaffold's table (and the pinned-proof table) names an action by:
    its type (``Compose``), ``<type>:<kind>`` for an Expression, ``<type>:<api>/<operation>`` for a connector."""
    if action.kind == "Expression":
        return f"Expression:{action.spec.get('kind')}"
    if "Connection" in action.kind:
        return f"{action.kind}:{api_of(action, gen.flow)}/{operation_of(action)}"
    return action.kind


_URL_SECRET = re.compile(r"([?&](?:code|sig|signature|key|api[_-]?key|token|access_token|secret|password)=)[^&\s\"']+",
                         re.IGNORECASE)


def _scrubbed(value: Any) -> Any:
    """Return ``value`` with the keys a URL's query carries (``?code=``, ``&sig=``) replaced by ``<redacted>``."""
    if isinstance(value, str):
        return _URL_SECRET.sub(r"\1<redacted>", value)
    if isinstance(value, dict):
        return {k: _scrubbed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrubbed(v) for v in value]
    return value


def todo(action: FlowAction, why: str) -> ActionCode:
    """Return a TODO action: its inputs shown (credentials redacted), and a body that fails the run naming it."""
    lines = [_code.comment(f"TODO: {why}")]
    if action.inputs is not None:
        shown = json.dumps(_scrubbed(_credential.redacted(action.inputs)), indent=2, ensure_ascii=False)
        lines += [_code.comment(f"    {line}") for line in shown.splitlines()[:30]]
    lines += stmts("return power_automate.todo($name, $why)", name=action.name, why=why)
    return ActionCode(lines, todo=why)


_CONNECTION = re.compile(r"\['([^']+)'\]\['connectionId'\]")


def api_of(action: FlowAction, flow: PowerAutomateFlow) -> str:
    """Return a connector action's API (``office365``, ``sharepointonline``), from its host."""
    host = (action.inputs or {}).get("host") if isinstance(action.inputs, dict) else None
    host = host if isinstance(host, dict) else {}
    api = str(host.get("apiId") or "")
    if not api:
        connection = obj(host.get("connection"))
        match = _CONNECTION.search(str(connection.get("name") or ""))
        key = match.group(1) if match else str(host.get("connectionName") or "")
        reference = flow.connections.get(key)
        api = str(reference.get("id") or "") if isinstance(reference, dict) else ""
        api = api or key
    last = api.rstrip("/").rsplit("/", 1)[-1]
    return re.sub(r"_\d+$", "", last.removeprefix("shared_")) or "connector"


def operation_of(action: FlowAction) -> str:
    """Return a connector action's operation: ``operationId``, the swagger id, else ``METHOD path``."""
    inputs = action.inputs if isinstance(action.inputs, dict) else {}
    host = obj(inputs.get("host"))
    found = host.get("operationId") or obj(obj(action.spec.get("metadata")).get("flowSystemMetadata")).get(
        "swaggerOperationId")
    return str(found or f"{str(inputs.get('method', 'get')).upper()} {inputs.get('path', '')}")
