"""Read n8n workflow files: nodes, connections, pinned data, and the order n8n runs nodes in.

Accepted documents: one workflow (what the editor's "Download" and ``n8n export:workflow
--id`` write: ``{name, nodes, connections, …}``), a list of workflows (``export:workflow --all``),
and the public API's list (``{"data": [workflow, …], "nextCursor": …}``). A directory is read
file by file (``export:workflow --all --separate``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.errors import ExportFormatError
from harness.importer.definition import DefinitionKind
from harness.scaffold._foreign import read_json, refuse_foreign

TRIGGER_SUFFIXES = ("trigger", "webhook")


@dataclass(frozen=True)
class Node:
    """One node of a workflow."""

    name: str
    type: str
    version: float
    parameters: dict[str, Any]
    disabled: bool = False
    on_error: str = "stop"  # stop | continue (regular output) | error_output
    position: tuple[float, float] = (0.0, 0.0)  # on the canvas: n8n v1 runs siblings top to bottom
    execute_once: bool = False  # "Execute Once": the node runs on its first input item only
    always_output: bool = False  # "Always Output Data": an empty output becomes one empty item
    credentials: tuple[tuple[str, str], ...] = ()  # (credential type, its name in n8n): never a secret

    @functools.cached_property
    def settings(self) -> dict[str, Any]:
        """The parameters as n8n runs the node: the export's, with every default it left out put back.

        ``parameters`` is the export as written; this reading takes the defaults from n8n's
        description of the node's type and version (:mod:`harness.platforms.n8n.descriptions`),
        and is the export unchanged for a node type or version with no description.
        """
        from harness.platforms.n8n.descriptions import with_defaults

        return with_defaults(self.type, self.version, self.parameters)

    @property
    def described(self) -> bool:
        """Tell whether n8n's description of this node's type and version is known (its defaults can be read)."""
        from harness.platforms.n8n.descriptions import properties

        return properties(self.type, self.version) is not None

    @property
    def short_type(self) -> str:
        """Return the type without its package, e.g. ``if`` for ``n8n-nodes-base.if``."""
        return self.type.rsplit(".", 1)[-1]

    @property
    def is_trigger(self) -> bool:
        """Return whether the node starts the workflow (a trigger or a webhook)."""
        low = self.short_type.lower()
        return low.endswith(TRIGGER_SUFFIXES) or low in ("cron", "interval")


@dataclass(frozen=True)
class Edge:
    """A connection: output ``output`` of ``source`` feeds input ``input`` of ``target``."""

    source: str
    output: int
    target: str
    input: int


@dataclass(frozen=True)
class SubNode:
    """An AI sub-node connection: ``source`` (a chat model, memory, tool, output parser) serves ``target``.

    ``kind`` is the connection type without its ``ai_`` prefix (``languageModel``, ``memory``,
    ``tool``, ``outputParser``, …). A sub-node never runs on its own: its root node calls it.
    """

    source: str
    kind: str
    target: str


@dataclass(frozen=True)
class Loop:
    """A cycle of the graph: ``header`` runs first, then ``body``, again for the items that come back.

    ``body`` is in run order; a cycle inside the cycle is a ``Loop`` of its own. ``back`` are the
    connections from inside the cycle into the header (what makes it run again).
    """

    header: str
    body: tuple[str | Loop, ...]
    back: tuple[Edge, ...]

    def members(self) -> set[str]:
        """Return every node of the loop, nested loops' included."""
        out = {self.header}
        for unit in self.body:
            out |= unit.members() if isinstance(unit, Loop) else {unit}
        return out


Plan = list["str | Loop"]


@dataclass(frozen=True)
class Workflow:
    """A parsed n8n workflow."""

    name: str
    id: str | None
    nodes: dict[str, Node]
    edges: tuple[Edge, ...]
    pin_data: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    path: str = ""
    settings: dict[str, Any] = field(default_factory=dict)  # the workflow's settings: timezone, errorWorkflow, …
    sub_nodes: tuple[SubNode, ...] = ()  # the ai_* connections (not main): sub-nodes and the root nodes they serve

    def attached(self, root: str) -> list[SubNode]:
        """Return the sub-nodes connected to ``root`` (its model, memory, tools, parser), in the export's order."""
        return [s for s in self.sub_nodes if s.target == root]

    def children(self, name: str) -> list[Edge]:
        """Return the edges out of ``name`` by output index, then top to bottom, left to right."""
        def key(edge: Edge) -> tuple[int, float, float]:
            x, y = self.nodes[edge.target].position if edge.target in self.nodes else (0.0, 0.0)
            return edge.output, y, x

        return sorted((e for e in self.edges if e.source == name), key=key)

    def parents(self, name: str) -> list[Edge]:
        """Return the edges into ``name`` by input index."""
        return sorted((e for e in self.edges if e.target == name), key=lambda e: e.input)

    def timezone(self) -> str | None:
        """The workflow's own timezone setting (None: n8n uses the instance's ``GENERIC_TIMEZONE``)."""
        value = self.settings.get("timezone")
        return value if isinstance(value, str) and value and value != "DEFAULT" else None

    def trigger(self) -> Node | None:
        """Return the node the workflow starts from (its trigger, else the first node with no input)."""
        enabled = [n for n in self.nodes.values() if not n.disabled]
        for node in enabled:
            if node.is_trigger:
                return node
        sources = {e.target for e in self.edges}
        return next((n for n in enabled if n.name not in sources), None)

    def order(self) -> tuple[list[str], set[str]]:
        """Return the nodes reachable from the trigger in run order, and the nodes in a loop.

        Depth first from the trigger, output 0's nodes before output 1's, the nodes on one output
        top to bottom on the canvas (n8n's v1 order); a node with several incoming connections
        comes after all of its reachable parents. n8n v1 finishes one child's branch before it
        starts the next child's, so when a later child is also fed from elsewhere (a node two
        exclusive branches lead to), it still comes after the earlier child's whole branch.
        """
        start = self.trigger()
        if start is None:
            return [], set()
        reachable = self._reachable(start.name)
        looped = self._looped(reachable)
        first = self._depth_first(start.name, reachable, looped)
        return (first if looped else self._branch_order(first)), looped

    def plan(self) -> Plan:
        """Return the run order with each cycle as a ``Loop`` (:meth:`order` when there is none).

        A cycle is a strongly connected set of reachable nodes; its header is the node it is
        entered by (the first in run order with a connection from outside, the SplitInBatches
        node of a "Loop Over Items"), and its body the other nodes in run order once the
        connections back into the header are set aside (so a cycle inside it is a nested loop).
        Nodes and loops follow each other as their connections require, else in run order.
        """
        order, looped = self.order()
        if not looped:
            return list(order)
        rank = {name: index for index, name in enumerate(order)}
        edges = [e for e in self.edges if e.source in rank and e.target in rank]
        return self._plan(order, edges, rank)

    def _plan(self, names: list[str], edges: list[Edge], rank: dict[str, int]) -> Plan:
        inside = set(names)
        edges = [e for e in edges if e.source in inside and e.target in inside]
        components = _components(names, edges)
        unit_of = {name: i for i, members in enumerate(components) for name in members}
        after: dict[int, set[int]] = {i: set() for i in range(len(components))}
        for edge in edges:
            a, b = unit_of[edge.source], unit_of[edge.target]
            if a != b:
                after[b].add(a)
        placed: list[int] = []
        while len(placed) < len(components):
            ready = [i for i in after if i not in placed and after[i] <= set(placed)]
            placed.append(min(ready, key=lambda i: min(rank[n] for n in components[i])))
        plan: Plan = []
        for i in placed:
            members = components[i]
            cyclic = len(members) > 1 or any(e.source == e.target for e in edges if e.source in members)
            plan.append(self._loop(sorted(members, key=rank.__getitem__), edges, rank) if cyclic else members.pop())
        return plan

    def _loop(self, members: list[str], edges: list[Edge], rank: dict[str, int]) -> Loop:
        inside = set(members)
        entered = [e.target for e in self.edges if e.target in inside and e.source not in inside and e.source in rank]
        header = min(entered, key=rank.__getitem__) if entered else members[0]
        back = tuple(e for e in edges if e.target == header and e.source in inside)
        rest = [e for e in edges if e.source in inside and e.target in inside and e.target != header]
        body = self._plan([n for n in members if n != header], rest, rank)
        return Loop(header, tuple(body), back)

    def _depth_first(self, start: str, reachable: set[str], looped: set[str]) -> list[str]:
        done: list[str] = []
        pending = [start]
        while pending:
            name = pending.pop()
            if name in done:
                continue
            waiting = [e.source for e in self.parents(name) if e.source in reachable and e.source not in done
                       and e.source not in looped]
            if waiting and name not in looped:
                continue
            done.append(name)
            pending.extend(e.target for e in reversed(self.children(name)) if e.target not in done)
        return done

    def _branch_order(self, first: list[str]) -> list[str]:
        """Return ``first`` reordered so each child's branch precedes its later siblings (or ``first``)."""
        rank = {name: index for index, name in enumerate(first)}
        below = {name: self._reachable(name) & rank.keys() for name in first}
        after: dict[str, set[str]] = {name: set() for name in first}  # node -> nodes that must precede it
        for name in first:
            by_output: dict[int, list[str]] = {}
            for edge in self.children(name):
                if edge.target in rank:
                    after[edge.target].add(name)
                    by_output.setdefault(edge.output, []).append(edge.target)
            for siblings in by_output.values():
                for i, earlier in enumerate(siblings):
                    for later in siblings[i + 1:]:
                        if later not in below[earlier]:
                            after[later] |= below[earlier] - below[later]
        ordered: list[str] = []
        while len(ordered) < len(first):
            ready = [n for n in first if n not in ordered and after[n] <= set(ordered)]
            if not ready:  # the constraints contradict each other: keep the depth-first order
                return first
            ordered.append(min(ready, key=rank.__getitem__))
        return ordered

    def _reachable(self, start: str) -> set[str]:
        seen, stack = set(), [start]
        while stack:
            name = stack.pop()
            if name in seen or name not in self.nodes or self.nodes[name].disabled:
                continue
            seen.add(name)
            stack.extend(e.target for e in self.children(name))
        return seen

    def _looped(self, reachable: set[str]) -> set[str]:
        looped: set[str] = set()
        for name in reachable:
            if name in self._reachable_from_children(name):
                looped.add(name)
        return looped

    def _reachable_from_children(self, name: str) -> set[str]:
        out: set[str] = set()
        for edge in self.children(name):
            out |= self._reachable(edge.target)
        return out


def _components(names: list[str], edges: list[Edge]) -> list[set[str]]:
    """Return the strongly connected components of the graph (Tarjan's algorithm, iteratively)."""
    children: dict[str, list[str]] = {name: [] for name in names}
    for edge in edges:
        children[edge.source].append(edge.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in names:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, child = work.pop()
            if child == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            if child < len(children[node]):
                work.append((node, child + 1))
                target = children[node][child]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            if low[node] == index[node]:
                members = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.add(member)
                    if member == node:
                        break
                found.append(members)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return found


def is_workflow(document: Any) -> bool:
    """Return whether a JSON value is an n8n workflow (nodes and connections, no run data)."""
    return isinstance(document, dict) and isinstance(document.get("nodes"), list) and "connections" in document


def iter_workflow_files(path: Path) -> Iterator[Path]:
    """Yield ``path`` or, for a directory, every ``*.json`` file in it (sorted).

    Raises ExportFormatError naming the directory when it holds no ``*.json`` file.
    """
    if path.is_dir():
        files = sorted(p for p in path.rglob("*.json") if p.is_file())
        if not files:
            raise ExportFormatError(str(path), None, None, "no n8n workflow found (no *.json file in the directory)")
        yield from files
    else:
        yield path


def load_workflows(path: Path) -> list[Workflow]:
    """Return the workflows of one file; raise ExportFormatError naming what is wrong."""
    document = read_json(path)
    refuse_foreign(document, str(path), DefinitionKind.N8N_WORKFLOW)
    if isinstance(document, dict) and isinstance(document.get("data"), list):
        document = document["data"]
    items = document if isinstance(document, list) else [document]
    workflows = [parse_workflow(d, str(path), i) for i, d in enumerate(items)]
    if not workflows:
        raise ExportFormatError(str(path), None, None, "no workflow in the file")
    return workflows


def parse_workflow(document: Any, path: str, index: int = 0) -> Workflow:
    """Parse one workflow object."""
    record = f"#{index + 1}"
    if not is_workflow(document):
        hint = (" (this is an execution export: scaffold reads the workflow file, e.g. from "
                "`n8n export:workflow --id ID` or the editor's Download)") if _is_execution(document) else ""
        raise ExportFormatError(path, record, "nodes", f"expected an n8n workflow with nodes and connections{hint}")
    nodes = {}
    for position, raw in enumerate(document["nodes"]):
        node = _node(raw, path, record, position)
        nodes[node.name] = node
    edges = tuple(_edges(document.get("connections") or {}, nodes, path, record))
    pins = document.get("pinData") if isinstance(document.get("pinData"), dict) else {}
    settings = document.get("settings") if isinstance(document.get("settings"), dict) else {}
    return Workflow(str(document.get("name") or Path(path).stem), _text(document.get("id")), nodes, edges,
                    pins, path, settings, tuple(_sub_nodes(document.get("connections"), nodes)))


def _is_execution(document: Any) -> bool:
    return isinstance(document, dict) and ("resultData" in str(document.get("data"))[:2000] or "finished" in document)


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _node(raw: Any, path: str, record: str, position: int) -> Node:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) or not isinstance(raw.get("type"), str):
        raise ExportFormatError(path, record, f"nodes[{position}]", "expected a node with a name and a type")
    return _node_of(raw)


def _node_of(raw: dict[str, Any]) -> Node:
    """Build a node from an object with a string ``name`` (any other field may be missing or junk)."""
    version = raw.get("typeVersion", 1)
    on_error = raw.get("onError") or ("continueRegularOutput" if raw.get("continueOnFail") else "stopWorkflow")
    kind = {"continueRegularOutput": "continue", "continueErrorOutput": "error_output"}.get(on_error, "stop") \
        if isinstance(on_error, str) else "stop"
    params: dict[str, Any] = raw["parameters"] if isinstance(raw.get("parameters"), dict) else {}
    number = isinstance(version, int | float) and abs(version) < 1e300
    return Node(raw["name"], str(raw.get("type", "")), float(version) if number else 1.0,
                params, bool(raw.get("disabled")), kind, _position(raw.get("position")), raw.get("executeOnce") is True,
                raw.get("alwaysOutputData") is True, _credentials(raw.get("credentials")))


def _credentials(given: Any) -> tuple[tuple[str, str], ...]:
    """A node's credentials as (type, name) pairs: what the export names, never what they hold."""
    if not isinstance(given, dict):
        return ()
    return tuple((str(kind), str(ref.get("name") or "")) for kind, ref in given.items() if isinstance(ref, dict))


def read_nodes(workflow: Any) -> dict[str, Node]:
    """Read the nodes of the workflow an execution carries (``workflowData``), by name, leniently.

    The run-history importer only needs node types and settings, so a node without a string
    name is left out and a missing type reads as ``""`` instead of refusing the execution;
    ``parse_workflow`` is the strict reading scaffold needs. No workflow: no nodes.
    """
    nodes = workflow.get("nodes") if isinstance(workflow, dict) else None
    if not isinstance(nodes, list):
        return {}
    return {n["name"]: _node_of(n) for n in nodes if isinstance(n, dict) and isinstance(n.get("name"), str)}


def _position(value: Any) -> tuple[float, float]:
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int | float) for v in value):
        return float(value[0]), float(value[1])
    return 0.0, 0.0


def _edges(connections: Any, nodes: dict[str, Node], path: str, record: str) -> Iterator[Edge]:
    if not isinstance(connections, dict):
        raise ExportFormatError(path, record, "connections", "expected an object")
    for source, kinds in connections.items():
        main = kinds.get("main") if isinstance(kinds, dict) else None
        for output, targets in enumerate(main or []):
            for target in targets or []:
                if isinstance(target, dict) and target.get("node") in nodes and source in nodes:
                    yield Edge(source, output, str(target["node"]), int(target.get("index") or 0))


def _sub_nodes(connections: Any, nodes: dict[str, Node]) -> Iterator[SubNode]:
    for source, kinds in (connections or {}).items() if isinstance(connections, dict) else ():
        for kind, outputs in (kinds or {}).items() if isinstance(kinds, dict) else ():
            if not (isinstance(kind, str) and kind.startswith("ai_")) or source not in nodes:
                continue
            for targets in outputs if isinstance(outputs, list) else ():
                for target in targets or []:
                    if isinstance(target, dict) and target.get("node") in nodes:
                        yield SubNode(source, kind[3:], str(target["node"]))
