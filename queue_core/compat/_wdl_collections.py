"""WDL collection functions and the JSON object manipulation functions.

A collection is a string (of characters), an array, or for some functions an object (its
keys). ``contains`` is case-sensitive; ``union`` and ``intersection`` keep the order of first
appearance and drop repeats (objects: the last value of a key wins); ``sort`` sorts numbers or
strings, or objects by one key. ``addProperty`` fails on a key that exists; ``setProperty`` and
``removeProperty`` return a copy (the argument is never changed).
"""

from __future__ import annotations

from typing import Any

from ._wdl_values import equal, fail, int_arg, is_number, kind, string_arg, text


def _collection(function: str, value: Any, *, objects: bool = False) -> Any:
    if isinstance(value, str | list) or (objects and isinstance(value, dict)):
        return value
    wanted = "a string, an array or an object" if objects else "a string or an array"
    fail(function, f"expects its parameter to be {wanted}. The provided value is of type '{kind(value)}'.")


def contains(collection: Any, value: Any) -> bool:
    """Return ``contains(collection, value)``: a substring, an array item or an object key."""
    found = _collection("contains", collection, objects=True)
    if isinstance(found, str):
        return text(value) in found
    if isinstance(found, dict):
        return text(value) in found
    return any(equal(item, value) for item in found)


def empty(collection: Any) -> bool:
    """Return ``empty(collection)``: null, ``""``, ``[]`` and ``{}`` are empty."""
    if collection is None:
        return True
    return len(_collection("empty", collection, objects=True)) == 0


def first(collection: Any) -> Any:
    """Return ``first(collection)``: the first character or item (``""`` / null when empty)."""
    found = _collection("first", collection)
    return found[0] if found else ("" if isinstance(found, str) else None)


def last(collection: Any) -> Any:
    """Return ``last(collection)``: the last character or item (``""`` / null when empty)."""
    found = _collection("last", collection)
    return found[-1] if found else ("" if isinstance(found, str) else None)


def length(collection: Any) -> int:
    """Return ``length(collection)``: characters of a string, items of an array."""
    return len(_collection("length", collection))


def join(collection: Any, delimiter: Any) -> str:
    """Return ``join(array, delimiter)``: the items' texts between delimiters."""
    if not isinstance(collection, list):
        fail("join", f"expects an array as its first parameter. The provided value is of type '{kind(collection)}'.")
    return string_arg("join", delimiter).join(text(item) for item in collection)


def skip(collection: Any, count: Any) -> Any:
    """Return ``skip(collection, count)``: all but the first ``count`` items."""
    found, n = _collection("skip", collection), int_arg("skip", count)
    if n < 0:
        fail("skip", f"expects a non-negative count, not {n}.")
    return found[n:]


def take(collection: Any, count: Any) -> Any:
    """Return ``take(collection, count)``: the first ``count`` characters or items."""
    found, n = _collection("take", collection), int_arg("take", count)
    if n < 0:
        fail("take", f"expects a non-negative count, not {n}.")
    return found[:n]


def chunk(collection: Any, size: Any) -> list[Any]:
    """Return ``chunk(collection, length)``: the string or array cut into pieces of ``length``."""
    found, n = _collection("chunk", collection), int_arg("chunk", size)
    if n <= 0:
        fail("chunk", f"expects a positive length, not {n}.")
    return [found[i:i + n] for i in range(0, len(found), n)]


def _same_kind(function: str, collections: tuple[Any, ...]) -> type:
    if not collections:
        fail(function, "expects at least one collection.")
    for value in collections:
        if not isinstance(value, list | dict):
            fail(function, f"expects arrays or objects. The provided value is of type '{kind(value)}'.")
    kinds = {type(v) for v in collections}
    if len(kinds) > 1:
        fail(function, "expects collections of one kind: all arrays or all objects.")
    return kinds.pop()


def _distinct(items: list[Any]) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if not any(equal(item, seen) for seen in out):
            out.append(item)
    return out


def union(first: Any, *rest: Any) -> Any:
    """Return ``union(a, b, …)``: every item of the arrays once, or the objects merged."""
    collections = (first, *rest)
    if _same_kind("union", collections) is dict:
        merged: dict[str, Any] = {}
        for value in collections:
            merged.update(value)
        return merged
    return _distinct([item for value in collections for item in value])


def intersection(first: Any, *rest: Any) -> Any:
    """Return ``intersection(a, b, …)``: the items (or key and value pairs) in every collection."""
    collections = (first, *rest)
    if _same_kind("intersection", collections) is dict:
        head = collections[0]
        return {k: collections[-1][k] for k in head
                if all(k in other and equal(other[k], head[k]) for other in collections[1:])}
    return _distinct([item for item in collections[0]
                      if all(any(equal(item, x) for x in other) for other in collections[1:])])


def createArray(first: Any, *rest: Any) -> list[Any]:  # noqa: N802 - the WDL name
    """Return ``createArray(a, b, …)``."""
    return [first, *rest]


def array(value: Any) -> list[Any]:
    """Return ``array(value)``: an array holding the one value."""
    return [value]


def _sort_key(function: str, values: list[Any]) -> Any:
    if all(is_number(v) for v in values):
        return lambda v: v
    if all(isinstance(v, str) for v in values):
        return lambda v: v
    fail(function, "expects an array of numbers or of strings (or of objects, with a key to sort by).")


def sort(collection: Any, by: Any = None) -> list[Any]:
    """Return ``sort(array, sortBy?)``: numbers or strings in order, or objects by the key ``sortBy``."""
    if not isinstance(collection, list):
        fail("sort", f"expects an array. The provided value is of type '{kind(collection)}'.")
    if by is None:
        return sorted(collection, key=_sort_key("sort", collection))
    key = string_arg("sort", by)
    if not all(isinstance(item, dict) and key in item for item in collection):
        fail("sort", f"expects every item to be an object with the property '{key}'.")
    values = [item[key] for item in collection]
    order = _sort_key("sort", values)
    return sorted(collection, key=lambda item: order(item[key]))


def reverse(collection: Any) -> list[Any]:
    """Return ``reverse(array)``."""
    if not isinstance(collection, list):
        fail("reverse", f"expects an array. The provided value is of type '{kind(collection)}'.")
    return collection[::-1]


# -- JSON object manipulation ---------------------------------------------------------------


def _object(function: str, value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    fail(function, f"expects an object as its first parameter. The provided value is of type '{kind(value)}'.")


def addProperty(obj: Any, name: Any, value: Any) -> dict[str, Any]:  # noqa: N802
    """Return ``addProperty(object, property, value)``; fails when the property exists."""
    found, key = _object("addProperty", obj), string_arg("addProperty", name)
    if key in found:
        fail("addProperty", f"cannot add the property '{key}': it already exists.")
    return {**found, key: value}


def setProperty(obj: Any, name: Any, value: Any) -> dict[str, Any]:  # noqa: N802
    """Return ``setProperty(object, property, value)``: the property set, written last (added when absent)."""
    found, key = _object("setProperty", obj), string_arg("setProperty", name)
    return {**{k: v for k, v in found.items() if k != key}, key: value}


def removeProperty(obj: Any, name: Any) -> dict[str, Any]:  # noqa: N802
    """Return ``removeProperty(object, property)``: the object without it (unchanged when absent)."""
    found, key = _object("removeProperty", obj), string_arg("removeProperty", name)
    return {k: v for k, v in found.items() if k != key}
