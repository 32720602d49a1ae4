"""Which trigger fields a run read before each decision: the cause a shadow report can show.

In ``shadow`` and ``dry_run`` mode the trigger's body and headers are handed to the automation as
read-noting views (:func:`watch`): a ``dict``/``list`` subclass each, so ``isinstance``, ``json``
and the code's own access work as on the plain values, and every field the code takes out of
them (``body["issue"]["title"]``, ``.get``, ``in``, iteration, ``items()``) is noted with its
path (``body.issue.title``) and value. When the code decides (``ctx.decide``), the fields read so
far are the decision's reads (:meth:`ReadLog.snapshot`): only what was read before a decision can
have decided it, so the list holds the cause, and perhaps more. Reads through a copy the code
made (``copy.deepcopy``, ``json.loads(json.dumps(...))``) are noted as a read of the whole value
copied, and nothing read from the copy is seen. ``live`` mode gets the plain values: no cost.

A decision keeps at most :data:`MAX_READS` fields, each value a scalar (a string cut at
:data:`MAX_CHARS`) or a marker for a container nothing deeper was read from.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

MAX_READS = 20
MAX_CHARS = 200


class ReadLog:
    """The trigger fields one run has read, in first-read order: path -> value (as first read)."""

    def __init__(self) -> None:
        self.fields: dict[str, Any] = {}

    def note(self, path: str, value: Any) -> None:
        if path not in self.fields:
            self.fields[path] = value

    def snapshot(self) -> dict[str, Any]:
        """Return the fields read so far: the deepest reads (a container read is kept only when
        nothing under it was read), at most MAX_READS, values shown as JSON scalars."""
        paths = list(self.fields)
        out: dict[str, Any] = {}
        for path in paths:
            if any(p != path and (p.startswith(path + ".") or p.startswith(path + "[")) for p in paths):
                continue
            out[path] = _shown(self.fields[path])
            if len(out) >= MAX_READS:
                break
        return out


def _shown(value: Any) -> Any:
    if isinstance(value, str):
        return value if len(value) <= MAX_CHARS else value[: MAX_CHARS - 1] + "…"
    if isinstance(value, dict | list) and not value:
        return {} if isinstance(value, dict) else []
    if isinstance(value, dict):
        return f"<object of {len(value)} field(s)>"
    if isinstance(value, list):
        return f"<list of {len(value)}>"
    if value is None or isinstance(value, bool | int | float):
        return value
    return str(value)[:MAX_CHARS]


def _child(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}"


def _wrap(log: ReadLog, path: str, value: Any) -> Any:
    if type(value) is dict:
        return ReadDict(value, log, path)
    if type(value) is list:
        return ReadList(value, log, path)
    return value


class ReadDict(dict):  # type: ignore[type-arg]
    """A ``dict`` whose reads are noted in a :class:`ReadLog` (see the module docstring)."""

    def __init__(self, data: dict[Any, Any], log: ReadLog, path: str) -> None:
        super().__init__(data)
        self._log, self._path = log, path

    def _take(self, key: Any, value: Any) -> Any:
        path = _child(self._path, key)
        self._log.note(path, value)
        wrapped = _wrap(self._log, path, value)
        if wrapped is not value:  # keep the view, so a change the code makes to it stays
            dict.__setitem__(self, key, wrapped)
        return wrapped

    def __getitem__(self, key: Any) -> Any:
        return self._take(key, dict.__getitem__(self, key))

    def get(self, key: Any, default: Any = None) -> Any:
        if dict.__contains__(self, key):
            return self._take(key, dict.__getitem__(self, key))
        self._log.note(_child(self._path, key), None)  # absent: the code saw "missing"
        return default

    def __contains__(self, key: object) -> bool:
        found = dict.__contains__(self, key)
        if not found:
            self._log.note(_child(self._path, key), None)
        return found

    def items(self) -> list[tuple[Any, Any]]:  # type: ignore[override]
        return [(k, self._take(k, v)) for k, v in list(dict.items(self))]

    def values(self) -> list[Any]:  # type: ignore[override]
        return [self._take(k, v) for k, v in list(dict.items(self))]

    def copy(self) -> dict[Any, Any]:
        self._log.note(self._path, dict(self))
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[Any, Any]:
        self._log.note(self._path, dict(self))
        return copy.deepcopy(_plain(self), memo)

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (_plain(self),))


class ReadList(list):  # type: ignore[type-arg]
    """A ``list`` whose element reads are noted in a :class:`ReadLog`."""

    def __init__(self, data: list[Any], log: ReadLog, path: str) -> None:
        super().__init__(data)
        self._log, self._path = log, path

    def _take(self, index: int, value: Any) -> Any:
        path = _child(self._path, index)
        self._log.note(path, value)
        wrapped = _wrap(self._log, path, value)
        if wrapped is not value:
            list.__setitem__(self, index, wrapped)
        return wrapped

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        value = list.__getitem__(self, index)
        return self._take(index if index >= 0 else len(self) + index, value)

    def __iter__(self) -> Iterator[Any]:
        return iter([self._take(i, v) for i, v in enumerate(list.__iter__(self))])

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        self._log.note(self._path, list(self))
        return copy.deepcopy(_plain(self), memo)

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (_plain(self),))


def _plain(value: Any) -> Any:
    """Return ``value`` with every view replaced by a plain dict/list (nothing noted)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in dict.items(value)}
    if isinstance(value, list):
        return [_plain(v) for v in list.__iter__(value)]
    return value


def watch(body: Any, headers: dict[str, str], log: ReadLog) -> tuple[Any, dict[str, str]]:
    """Return read-noting views of a trigger's body and headers (paths ``body.…``, ``headers.…``)."""
    return _wrap(log, "body", body), ReadDict(headers, log, "headers")
