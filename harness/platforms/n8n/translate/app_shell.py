"""Translate n8n's SSH (v1, command execute), Execute Command, Read Binary File and Read/Write Files from Disk (v1).

Each is a provider call per item (``queue_core.compat._n8n_shell``): SSH a call of an ``ssh``
provider (``ssh://<name>``, ``queue_core.gateway.ssh``), one per n8n credential the workflow names
(``ssh_<credential name>``, or the name when it starts with "ssh": each host is its own provider, its login in the env var its
``dsn_env`` names); Execute Command, Read Binary File and Read/Write Files from Disk a call of the
``exec`` provider (``exec://host``, ``queue_core.gateway.exec``): the worker's own host, as n8n ran
them on its own. Live the command runs; shadow and dry-run answer each call from the recording, so nothing runs.
SSH's file upload and download, and any of them continuing on error, are left for a person.
"""

from __future__ import annotations

import ast

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.shell_runs import EXEC_BASE, EXEC_PROVIDER, ssh_provider
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.nodes import NodeCode, Slot, comment
from harness.scaffold import _code
from harness.scaffold._code import call, dict_of, name, stmts



def _per_item(value: object) -> ast.expr:
    return _code.expr("lambda item, i: $v", v=expr.value(value))


def _code_of(node: Node, slot: Slot, runtime: ast.expr, proposals: dict[str, str]) -> NodeCode:
    lines = [comment(node), *stmts("items = $inp", inp=slot.inputs[0] if slot.inputs else ast.List([], ast.Load())),
             *stmts("$var = flow.emit($node, await $run) if items else []", var=name(slot.var), node=node.name,
                    run=runtime)]
    return NodeCode(lines, [slot.var], call_step=slot.step, provider_proposals=proposals)


def ssh_node(node: Node, slot: Slot) -> NodeCode:
    """SSH v1, resource command, operation execute: ``n8n.ssh_command`` per item."""
    params = node.settings
    resource, operation = params.get("resource", "command"), params.get("operation", "execute")
    if node.version != 1 or (resource, operation) != ("command", "execute"):
        raise Untranslatable(f"SSH v{node.version:g} {resource}.{operation} is not translated (v1 command.execute is)")
    if node.on_error != "stop":
        raise Untranslatable("SSH continuing on error is not translated")
    wanted = ssh_provider(node)
    provider = slot.providers.get(wanted, wanted)  # a provider configured with base_url ssh://<wanted>
    proposals = {} if wanted in slot.providers else {provider: f"ssh://{wanted}"}
    runtime = call("n8n.ssh_command", name("ctx"), provider, node.name, name("items"),
                   _per_item(params.get("command", "")), _per_item(params.get("cwd", "/")), slot.step)
    return _code_of(node, slot, runtime, proposals)


def execute_command_node(node: Node, slot: Slot) -> NodeCode:
    """Execute Command v1: ``n8n.exec_command`` on the worker's host (the first item only with Execute Once)."""
    params = node.settings
    if node.version != 1 or node.on_error != "stop":
        raise Untranslatable("Execute Command is translated at v1 stopping on error only")
    runtime = call("n8n.exec_command", name("ctx"), EXEC_PROVIDER, node.name, name("items"),
                   _per_item(params.get("command", "")), slot.step, execute_once=params.get("executeOnce", True) is not False)
    return _code_of(node, slot, *_host(slot, runtime))


def _host(slot: Slot, runtime: ast.Call) -> tuple[ast.Call, dict[str, str]]:
    """The exec provider the configuration names for ``exec://host`` (else ``host``, proposed)."""
    provider = slot.providers.get(EXEC_PROVIDER)
    if provider is None:
        return runtime, {EXEC_PROVIDER: EXEC_BASE}
    runtime.args[1] = ast.Constant(provider)
    return runtime, {}


def read_binary_file_node(node: Node, slot: Slot) -> NodeCode:
    """Read Binary File v1: ``n8n.read_binary_file`` on the worker's host."""
    params = node.settings
    if node.version != 1 or node.on_error != "stop":
        raise Untranslatable("Read Binary File is translated at v1 stopping on error only")
    prop = params.get("dataPropertyName", "data")
    if not isinstance(prop, str) or prop.startswith("="):
        raise Untranslatable("a binary property name computed by an expression is not translated")
    runtime = call("n8n.read_binary_file", name("ctx"), EXEC_PROVIDER, node.name, name("items"),
                   _per_item(params.get("filePath", "")), slot.step, prop)
    return _code_of(node, slot, *_host(slot, runtime))


def read_write_file_node(node: Node, slot: Slot) -> NodeCode:
    """Read/Write Files from Disk v1: read (a glob, one item per file) or write (an item's binary property)."""
    params = node.settings
    if node.version != 1 or node.on_error != "stop":
        raise Untranslatable("Read/Write Files from Disk is translated at v1 stopping on error only")
    options = params.get("options") or {}
    if params.get("operation", "read") == "write":
        runtime = call("n8n.write_files", name("ctx"), EXEC_PROVIDER, node.name, name("items"),
                       _per_item(params.get("fileName", "")), slot.step, _per_item(params.get("dataPropertyName", "data")),
                       _per_item(options.get("append", False)))
    else:
        selector = params.get("fileSelector", "")
        if isinstance(selector, str) and "{" in selector.replace("{{", "").replace("}}", ""):
            raise Untranslatable("a file selector with braces ({a,b}) is not translated: the glob does not expand them")
        chosen = dict_of((str(k), expr.value(v)) for k, v in options.items()
                         if k in ("fileName", "fileExtension", "mimeType", "dataPropertyName"))
        runtime = call("n8n.read_files", name("ctx"), EXEC_PROVIDER, node.name, name("items"), _per_item(selector),
                       slot.step, _code.expr("lambda item, i: $o", o=chosen))
    return _code_of(node, slot, *_host(slot, runtime))


TRANSLATORS = {"ssh": ssh_node, "executeCommand": execute_command_node, "readBinaryFile": read_binary_file_node,
               "readWriteFile": read_write_file_node}
