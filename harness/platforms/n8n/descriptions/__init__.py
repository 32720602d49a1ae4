"""n8n's node descriptions: every parameter's default, per node type and version, read as n8n reads them.

An n8n export leaves out every parameter equal to its default: an IF v1 number condition saved
with the operation "Smaller" has no ``operation`` key at all, and a Switch v1 rule's ``output`` of
0 is absent. Read literally, such a workflow means something n8n never did. :func:`with_defaults`
puts the defaults back the way n8n does before it runs a node: each top-level parameter that is
*shown* (its ``displayOptions`` hold for the parameters so far and the node's version) and absent
takes its default; each entry of a fixed collection (``conditions.number[0]``) gets the defaults
of its own absent values, shown or not by its siblings; an optional collection (``options``) is
left as it is, because n8n's nodes apply those defaults in their own code (and only the ones a
person added are in the export). Two descriptions of one name (n8n describes ``value1`` once per
data type) are told apart by their display options: the first one shown wins.

``nodes.json`` is data, not code: the names, types, defaults, options and display conditions of
the node versions the translator reads, written by ``extract.js`` from n8n's own package (the n8n
that the oracle suite installs). :func:`refresh` writes it again for a new n8n release.
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
from collections.abc import Mapping, Sequence
from copy import deepcopy
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE / "nodes.json"
# The AI nodes (@n8n/n8n-nodes-langchain) in a table of their own: their short names (openAi)
# would collide with n8n-nodes-base's. Written by extract.js with N8N_NODES_PACKAGE set.
LANGCHAIN, LANGCHAIN_DATA = "@n8n/n8n-nodes-langchain.", HERE / "langchain.json"
PREFIXES = ("n8n-nodes-base.", "@n8n/n8n-nodes-langchain.")


@functools.cache
def _table(data: Path = DATA) -> dict[str, dict[str, Any]]:
    loaded: dict[str, dict[str, Any]] = json.loads(data.read_text(encoding="utf-8"))
    return loaded


def _of(node_type: str) -> dict[str, Any]:
    return _table(LANGCHAIN_DATA if node_type.startswith(LANGCHAIN) else DATA).get(short_type(node_type), {})


def short_type(node_type: str) -> str:
    """Return the short name n8n's descriptions use: ``n8n-nodes-base.if`` → ``if``."""
    for prefix in PREFIXES:
        if node_type.startswith(prefix):
            return node_type[len(prefix):]
    return node_type


def described_versions(node_type: str) -> tuple[float, ...]:
    """Return the versions of ``node_type`` whose description is known (empty when none is)."""
    return tuple(sorted(float(v) for v in _of(node_type)))


def properties(node_type: str, version: float) -> list[dict[str, Any]] | None:
    """Return the parameter descriptions of ``node_type`` at ``version`` (None when not described)."""
    versions = _of(node_type)
    if not versions:
        return None
    for key, described in versions.items():
        if float(key) == float(version):
            return list(described["properties"])
    return None


def with_defaults(node_type: str, version: float, parameters: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``parameters`` with every default n8n would apply put back (a copy; unknown nodes unchanged)."""
    described = properties(node_type, version)
    if described is None:
        return deepcopy(dict(parameters))
    return _fill(described, dict(parameters), root=None, version=float(version))


def _fill(described: Sequence[Mapping[str, Any]], given: dict[str, Any], *, root: Mapping[str, Any] | None,
          version: float) -> dict[str, Any]:
    result = deepcopy(given)
    settled: set[str] = set()
    for prop in described:
        name = str(prop["name"])
        if name in settled or prop.get("type") == "notice":
            continue
        top = result if root is None else root
        if not _shown(prop.get("displayOptions"), result, top, version):
            continue
        settled.add(name)
        if name not in result:
            if "default" in prop:
                result[name] = deepcopy(prop["default"])
            else:
                continue
        if prop.get("type") == "fixedCollection":
            result[name] = _fill_fixed(prop, result[name], top, version)
    return result


def _fill_fixed(prop: Mapping[str, Any], value: Any, top: Mapping[str, Any], version: float) -> Any:
    """Fill each entry of a fixed collection (``{"number": [{...}, ...]}``) with its values' defaults."""
    if not isinstance(value, dict):
        return value
    for option in prop.get("options") or []:
        key = option["name"]
        if key not in value:
            continue
        entries = value[key]
        if isinstance(entries, list):
            value[key] = [_fill(option["values"], dict(e), root=top, version=version) if isinstance(e, dict) else e
                          for e in entries]
        elif isinstance(entries, dict):
            value[key] = _fill(option["values"], dict(entries), root=top, version=version)
    return value


def _shown(options: Mapping[str, Any] | None, siblings: Mapping[str, Any], top: Mapping[str, Any],
           version: float) -> bool:
    """Tell whether a parameter with these ``displayOptions`` is shown, as n8n's editor and engine decide."""
    if not options:
        return True
    for key, wanted in (options.get("show") or {}).items():
        if not any(_matches(_value(key, siblings, top, version), w) for w in wanted):
            return False
    for key, unwanted in (options.get("hide") or {}).items():
        if any(_matches(_value(key, siblings, top, version), w) for w in unwanted):
            return False
    return True


_MISSING = object()


def _value(key: str, siblings: Mapping[str, Any], top: Mapping[str, Any], version: float) -> Any:
    if key == "@version":
        return version
    if key.startswith("/"):
        return _path(top, key[1:])
    return _path(siblings, key)


def _path(values: Mapping[str, Any], dotted: str) -> Any:
    current: Any = values
    for part in dotted.split("."):
        if not isinstance(current, Mapping) or part not in current:
            return _MISSING
        current = current[part]
    return current


def _matches(value: Any, wanted: Any) -> bool:
    """One display condition: a value to equal, or n8n's ``{"_cnd": {operator: operand}}``."""
    if isinstance(wanted, dict) and "_cnd" in wanted:
        ((op, operand),) = wanted["_cnd"].items()
        return _condition(op, value, operand)
    if value is _MISSING:
        return False
    if isinstance(value, bool) or isinstance(wanted, bool):
        return value is wanted
    if isinstance(value, int | float) and isinstance(wanted, int | float):
        return float(value) == float(wanted)
    return bool(value == wanted)


def _condition(op: str, value: Any, operand: Any) -> bool:
    if op == "exists":
        return value is not _MISSING and value is not None and value != ""
    if value is _MISSING:
        return False
    numeric = isinstance(value, int | float) and not isinstance(value, bool)
    if op == "eq":
        return bool(value == operand)
    if op == "not":
        return bool(value != operand)
    if op in ("gte", "lte", "gt", "lt") and numeric and isinstance(operand, int | float):
        return bool({"gte": value >= operand, "lte": value <= operand, "gt": value > operand, "lt": value < operand}[op])
    if op == "between" and numeric and isinstance(operand, Mapping):
        return bool(operand.get("from", float("-inf")) <= value <= operand.get("to", float("inf")))
    if isinstance(value, str) and isinstance(operand, str):
        if op == "startsWith":
            return value.startswith(operand)
        if op == "endsWith":
            return value.endswith(operand)
        if op == "includes":
            return operand in value
        if op == "regex":
            return re.search(operand, value) is not None
    return False


def refresh(node_modules: Path, node_types: Sequence[str], out: Path = DATA) -> None:
    """Write ``nodes.json`` from the n8n installed in ``node_modules`` for ``node_types`` (short names)."""
    done = subprocess.run(["node", str(HERE / "extract.js"), str(node_modules), *node_types],
                          check=True, capture_output=True, text=True)
    data = json.loads(done.stdout)
    missing = sorted(set(node_types) - set(data))
    if missing:
        raise ValueError(f"n8n in {node_modules} describes no node named {', '.join(missing)}")
    out.write_text(json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n", encoding="utf-8")
    _table.cache_clear()


def add_versions(node_modules: Path, wanted: Mapping[str, Sequence[str]], out: Path = DATA,
                 package: str | None = None) -> list[str]:
    """Add the descriptions of the ``wanted`` versions (short type → versions, e.g. ``{"slack": ["2.5"]}``)
    from a newer n8n's ``node_modules`` to ``out``; the versions ``out`` already holds stay exactly as
    they are (they were read from the n8n the other oracle runs). Return the "type vversion" added.

    ``package``: the node package (``@n8n/n8n-nodes-langchain`` for ``langchain.json``).
    """
    import os

    env = {**os.environ, **({"N8N_NODES_PACKAGE": package} if package else {})}
    done = subprocess.run(["node", str(HERE / "extract.js"), str(node_modules), *wanted],
                          check=True, capture_output=True, text=True, env=env)
    found = json.loads(done.stdout)
    table = json.loads(out.read_text(encoding="utf-8"))
    added = []
    for node_type, versions in wanted.items():
        for version in versions:
            if version not in found.get(node_type, {}):
                raise ValueError(f"n8n in {node_modules} does not describe {node_type} v{version}")
            if version not in table.setdefault(node_type, {}):
                table[node_type][version] = found[node_type][version]
                added.append(f"{node_type} v{version}")
    out.write_text(json.dumps(table, sort_keys=True, separators=(",", ":")) + "\n", encoding="utf-8")
    _table.cache_clear()
    return added
