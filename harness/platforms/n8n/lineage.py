"""Follow n8n's item lineage (``pairedItem``) from one node's output items to every later node run.

n8n runs a node once over all of its input items. Each item a node outputs names the input item
it came from: ``pairedItem`` is ``{"item": i}`` or ``{"item": i, "input": k}``, a list of those (an
item made from several), or a bare index ``i``; ``k`` (default 0) indexes the node run's
``source`` list, whose entry names the previous node (``previousNode``), which of its outputs
(``previousNodeOutput``, default 0) and which of its runs (``previousNodeRun``, default 0).

Starting from a *root* node's output items (numbered in order over the root's runs and outputs),
:func:`trace_lineage` gives every later output item the set of root items it descends from. An
item descending from several root items was joined (an Aggregate, a Merge by position); the
run that made it belongs to no single item.

Pure: takes an execution's ``runData`` (plain dicts) and returns values. Malformed lineage raises
:class:`~harness.errors.ExportFormatError` naming the file, the execution and the item's field. An
item with no ``pairedItem`` (n8n before 1.0 did not always write it; a Code node can drop it)
descends from every item of the node's inputs: from the only one when there is one, else it is a
join like an Aggregate's item, and its node belongs to no single item.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from harness._field import type_name
from harness.errors import ExportFormatError

Ref = tuple[str, int, int, int]  # node, run, output, item
RunRef = tuple[str, int]  # node, run
NOBODY: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Lineage:
    """The root's items (and where each sits), and for every output item the root items it descends from."""

    root: str
    items: list[Any]
    places: list[Ref]
    owners: dict[Ref, frozenset[int]]

    def of(self, node: str, run: int, output: int, item: int) -> frozenset[int]:
        """Return the root items one output item descends from (none for an item off the root's lineage)."""
        return self.owners.get((node, run, output, item), NOBODY)

    def inputs(self, run_data: dict[str, Any], node: str, run: int) -> frozenset[int]:
        """Return the root items a node run received: the owners of every item of every input."""
        found: set[int] = set()
        for source in _sources(run_data[node][run]):
            if source is None:
                continue
            previous, output, prior = source
            for index in range(len(_output(run_data, previous, prior, output))):
                found |= self.of(previous, prior, output, index)
        return frozenset(found)


def main_outputs(task: Any) -> list[list[Any]]:
    """Return a task's ``data.main``: one list of items per output (empty lists for junk)."""
    data = task.get("data") if isinstance(task, dict) else None
    main = data.get("main") if isinstance(data, dict) else None
    return [out if isinstance(out, list) else [] for out in main] if isinstance(main, list) else []


def _output(run_data: dict[str, Any], node: str, run: int, output: int) -> list[Any]:
    tasks = run_data.get(node)
    if not isinstance(tasks, list) or not 0 <= run < len(tasks):
        return []
    outputs = main_outputs(tasks[run])
    return outputs[output] if 0 <= output < len(outputs) else []


def _index(value: Any, default: int) -> int | None:
    if value is None:
        return default
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _sources(task: Any) -> list[tuple[str, int, int] | None]:
    """Return a task's inputs as ``(previous node, its output, its run)``; ``None`` for an unfed input."""
    raw = task.get("source") if isinstance(task, dict) else None
    found: list[tuple[str, int, int] | None] = []
    for entry in raw if isinstance(raw, list) else []:
        node = entry.get("previousNode") if isinstance(entry, dict) else None
        output = _index(entry.get("previousNodeOutput"), 0) if isinstance(entry, dict) else None
        run = _index(entry.get("previousNodeRun"), 0) if isinstance(entry, dict) else None
        found.append((node, output, run) if isinstance(node, str) and output is not None and run is not None else None)
    return found


def trace_lineage(run_data: dict[str, Any], root: str, order: list[RunRef], path: str, record: str) -> Lineage | None:
    """Return the lineage of ``root``'s output items through ``run_data``; ``None`` when the root never ran.

    ``order`` lists every ``(node, run)`` in execution order; a run's inputs are resolved first
    whatever the order says. Raises ExportFormatError for a malformed or dangling ``pairedItem``.
    """
    tasks = run_data.get(root)
    if not isinstance(tasks, list) or not tasks:
        return None
    owners: dict[Ref, frozenset[int]] = {}
    items: list[Any] = []
    places: list[Ref] = []
    for run, task in enumerate(tasks):
        for output, out in enumerate(main_outputs(task)):
            for index, item in enumerate(out):
                owners[(root, run, output, index)] = frozenset({len(items)})
                items.append(item)
                places.append((root, run, output, index))
    lineage = Lineage(root, items, places, owners)
    done: set[RunRef] = {(root, run) for run in range(len(tasks))}
    for ref in order:
        _resolve(run_data, lineage, ref, done, path, record)
    return lineage


def _resolve(run_data: dict[str, Any], lineage: Lineage, start: RunRef, done: set[RunRef], path: str, record: str) -> None:
    """Give every output item of ``start`` (and, first, of the runs feeding it) its owners, without recursion."""
    stack, visiting = [start], {start}
    while stack:
        node, run = stack[-1]
        if (node, run) in done:
            stack.pop()
            continue
        tasks = run_data.get(node)
        task = tasks[run] if isinstance(tasks, list) and 0 <= run < len(tasks) else None
        waiting = [(s[0], s[2]) for s in _sources(task) if s is not None and (s[0], s[2]) not in done
                   and isinstance(run_data.get(s[0]), list) and s[2] < len(run_data[s[0]])]
        if waiting:
            for ref in waiting:
                if ref in visiting:
                    raise ExportFormatError(path, record, _field(node, run), f"the run's inputs loop back to {ref[0]!r}")
                visiting.add(ref)
                stack.append(ref)
            continue
        _own(run_data, lineage, node, run, task, path, record)
        done.add((node, run))
        stack.pop()


def _own(run_data: dict[str, Any], lineage: Lineage, node: str, run: int, task: Any, path: str, record: str) -> None:
    sources = _sources(task)
    if not lineage.inputs(run_data, node, run):
        return  # fed by nothing (a trigger) or by items off the root's lineage: nothing to follow
    for output, out in enumerate(main_outputs(task)):
        for index, item in enumerate(out):
            where = f"{_field(node, run)}.data.main[{output}][{index}].pairedItem"
            found: set[int] = set()
            for ref in paired_refs(item, sources, run_data, path, record, where):
                found |= lineage.of(*ref)
            if found:
                lineage.owners[(node, run, output, index)] = frozenset(found)


def _field(node: str, run: int) -> str:
    return f"data.resultData.runData.{node}[{run}]"


def paired_refs(
    item: Any, sources: list[tuple[str, int, int] | None], run_data: dict[str, Any], path: str, record: str, where: str,
) -> Iterator[Ref]:
    """Yield the input items an output item names in its ``pairedItem``, checked against the inputs."""
    raw = item.get("pairedItem") if isinstance(item, dict) else None
    if raw is None:  # no lineage recorded: it may come from any input item
        for source in sources:
            if source is not None:
                node, output, run = source
                yield from ((node, run, output, index) for index in range(len(_output(run_data, node, run, output))))
        return
    for position, entry in enumerate(raw if isinstance(raw, list) else [raw]):
        at = f"{where}[{position}]" if isinstance(raw, list) else where
        if isinstance(entry, int) and not isinstance(entry, bool):
            entry = {"item": entry}
        if not isinstance(entry, dict):
            raise ExportFormatError(path, record, at, f"expected {{\"item\": <index>}} or an index, got {type_name(entry)}")
        index, wanted = _index(entry.get("item", -1), 0), _index(entry.get("input"), 0)
        if index is None or wanted is None:
            raise ExportFormatError(path, record, at, "expected a non-negative integer 'item' (and 'input')")
        if wanted >= len(sources) or sources[wanted] is None:
            raise ExportFormatError(path, record, at, f"input {wanted} is not one of the node's {len(sources)} fed inputs")
        node, output, run = sources[wanted]  # type: ignore[misc]
        held = len(_output(run_data, node, run, output))
        if index >= held:
            raise ExportFormatError(path, record, at, f"points at item {index}, but {node!r} output {output} holds {held} items")
        yield node, run, output, index

