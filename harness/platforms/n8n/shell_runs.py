"""An SSH, Execute Command or file node's run in an n8n execution, as the call the scaffold makes for it in shadow.

Live, the scaffold makes one provider call per item (``queue_core.compat._n8n_shell``): ``SSH
ssh://<provider>/command`` with ``{"command", "cwd"}``, ``EXEC exec://host/command`` with
``{"command", "cwd": null}``, ``EXEC exec://host/read`` with ``{"path"}``, ``/glob`` with
``{"pattern"}`` (Read/Write Files from Disk's read), ``/write`` (its write). In shadow and
dry-run the node's first call is answered with the node's whole recorded output, so a node run
is that one call, and the legacy trace gets the same one: the shadow run compares the command
n8n ran with the one the code would run. A body is given only where the node's parameters are
literal (no expression) and hold no file bytes; else it is None, and the call's provider, method
and URL are still compared (``harness.shadow.normalize`` leaves out what the legacy side does not know).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from harness.importer._run import split_url
from harness.manifest import AutomationEntry
from harness.platforms.n8n.definition import Node

EXEC_PROVIDER, EXEC_BASE = "host", "exec://host"  # the worker's own host (queue_core.gateway.exec)
SHELL_TYPES = ("n8n-nodes-base.ssh", "n8n-nodes-base.executeCommand", "n8n-nodes-base.readBinaryFile",
               "n8n-nodes-base.readWriteFile")


def ssh_provider(node: Node) -> str:
    """The SSH provider of a node: its credential's name (``ssh_`` before it unless it starts so; ``ssh``: none)."""
    names = [label for kind, label in node.credentials if kind in ("sshPassword", "sshPrivateKey") and label]
    stem = re.sub(r"[^a-z0-9]+", "_", names[0].lower()).strip("_") if names else ""
    return (stem if stem.startswith("ssh") else f"ssh_{stem}") if stem else "ssh"


def _literal(value: Any) -> bool:
    return not (isinstance(value, str) and (value.startswith("=") or "{{" in value))


def shell_calls(run: Any, step: str, entry: AutomationEntry,
                inputs: Callable[[Any], list[dict[str, Any]] | None] | None = None) -> list[dict[str, Any]]:
    """Return the call a shell node's run made in shadow terms (see the module docstring); none for other nodes
    or a run with no input item."""
    if run.type not in SHELL_TYPES:
        return []
    items = inputs(run) if inputs is not None else None
    if items == []:
        return []
    node = run.node
    params = node.settings if node.described else node.parameters
    kind = node.short_type
    body: dict[str, Any] | None
    if kind == "ssh":
        base, method, operation = f"ssh://{ssh_provider(node)}", "SSH", "/command"
        body = {"command": params.get("command", ""), "cwd": params.get("cwd", "/")}
    elif kind == "executeCommand":
        base, method, operation = EXEC_BASE, "EXEC", "/command"
        body = {"command": params.get("command", ""), "cwd": None}
    elif kind == "readBinaryFile":
        base, method, operation = EXEC_BASE, "EXEC", "/read"
        body = {"path": params.get("filePath", "")}
    elif params.get("operation", "read") == "write":
        base, method, operation, body = EXEC_BASE, "EXEC", "/write", None  # the bytes are not in the export
    else:
        base, method, operation = EXEC_BASE, "EXEC", "/glob"
        body = {"pattern": params.get("fileSelector", "")}
    provider, url = split_url(entry, base + operation)
    known = body if body is not None and all(_literal(v) for v in body.values()) else None
    return [{"step": step, "provider": provider, "method": method, "url": url, "body": known}]
