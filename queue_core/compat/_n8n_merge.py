"""n8n's Merge node (v2 and v3) as plain functions over items, with n8n's semantics.

What each function reproduces is n8n 1.123's Merge as the oracle suite (``tests/oracle``) runs
it: matching fields compare as lodash ``isEqual`` does (``1`` and ``"1"`` differ, a missing field
matches nothing), matched items are combined by a deep merge (lodash ``merge``: nested objects
merge key by key, arrays index by index, ``null`` overwrites), and the order of the output is
n8n's: matches in input 1's order, then the unmatched items.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from ..errors import NodeFailed

Item = dict[str, Any]
Items = list[Item]
_MISSING = object()


def merge_append(*inputs: Items) -> Items:
    """Return a Merge in append mode: input 1's items, then input 2's (and so on)."""
    return [item for items in inputs for item in items]


def merge_choose(inputs: Sequence[Items], which: int) -> Items:
    """Return a Merge in "choose branch" mode: the items of input ``which`` (0-based)."""
    return list(inputs[which]) if which < len(inputs) else []


def deep_merge(*objects: Any) -> dict[str, Any]:
    """Return lodash's ``merge({}, *objects)``: later objects win, nested values merge."""
    result: dict[str, Any] = {}
    for source in objects:
        if isinstance(source, dict):
            _merge_into(result, source)
    return result


def _merge_into(target: dict[Any, Any] | list[Any], source: dict[Any, Any] | list[Any], skip_empty: bool = False) -> None:
    """Merge ``source`` into ``target`` in place, as lodash ``merge`` (``mergeWith`` skipping empties)."""
    keys = range(len(source)) if isinstance(source, list) else list(source)
    for key in keys:
        value = source[key]
        if isinstance(target, list):
            existing = target[key] if isinstance(key, int) and key < len(target) else _MISSING
        else:
            existing = target.get(key, _MISSING)
        if skip_empty and existing is not _MISSING and value in (None, ""):
            continue  # "Minimize Empty Fields": an empty value keeps the one already there
        if isinstance(value, list):
            merged: Any = existing if isinstance(existing, list) else []
            _merge_into(merged, value, skip_empty)
        elif isinstance(value, dict):
            merged = existing if isinstance(existing, dict | list) else {}
            if isinstance(merged, dict):
                _merge_into(merged, value, skip_empty)
        else:
            merged = value
        _put(target, key, merged)


def _put(target: dict[Any, Any] | list[Any], key: Any, value: Any) -> None:
    if isinstance(target, dict):
        target[key] = value
    elif isinstance(key, int):
        target.extend([None] * (key + 1 - len(target)))
        target[key] = value


def _merger(clash_options: dict[str, Any]) -> Any:
    """Return n8n's ``selectMergeMethod``: deep (the default) or shallow, optionally skipping empties.

    With "Minimize Empty Fields" n8n merges into a shallow copy of the first object, so its
    nested objects are merged into in place: a later pair sees what an earlier one wrote there.
    The callers give such a merge copies of their inputs (``_private``) where n8n gives the node
    copies (v3), so only the node's own items change.
    """
    shallow = clash_options.get("mergeMode") == "shallowMerge"
    skip_empty = bool(clash_options.get("overrideEmpty"))

    def merge(*objects: Any) -> dict[str, Any]:
        if not shallow and not skip_empty:
            return deep_merge(*objects)
        result: dict[str, Any] = dict(objects[0] or {}) if objects else {}
        for source in objects[1:]:
            if not shallow:
                _merge_into(result, source or {}, skip_empty)
                continue
            for key, value in (source or {}).items():
                if not (skip_empty and key in result and value in (None, "")):
                    result[key] = value
        return result
    return merge


def _private(items: Items, clash_options: dict[str, Any]) -> Items:
    """Return ``items`` copied when the merge writes into nested objects in place (see ``_merger``)."""
    in_place = bool(clash_options.get("overrideEmpty")) and clash_options.get("mergeMode") != "shallowMerge"
    return copy.deepcopy(items) if in_place else items


def _suffixed(items: Items, suffix: str) -> Items:
    return [{**item, "json": {f"{k}_{suffix}": v for k, v in (item.get("json") or {}).items()}} for item in items]


def same(left: Any, right: Any) -> bool:
    """Return lodash ``isEqual``: deep equality with JavaScript's types (``true`` is not ``1``)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(same(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(same(a, b) for a, b in zip(left, right, strict=True))
    return type(left) is type(right) and left == right


def _lookup(item: Item, path: str, dot_notation: bool) -> Any:
    """Return the field at ``path`` (lodash ``get``), or _MISSING when there is none."""
    value: Any = item.get("json") or {}
    for key in (path.split(".") if dot_notation else [path]):
        if isinstance(value, dict) and key in value:
            value = value[key]
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            return _MISSING
    return value


def check_match_fields(fields: Sequence[tuple[str, str]], node: str = "Merge") -> None:
    """Raise NodeFailed as n8n does for a "Fields to Match" pair with an empty side."""
    if len(fields) == 1 and fields[0] == ("", ""):
        raise NodeFailed(f'{node}: You need to define at least one pair of fields in "Fields to Match" to match on')
    for index, (one, two) in enumerate(fields):
        if one == "" or two == "":
            raise NodeFailed(f'{node}: You need to define both fields in "Fields to Match" for pair {index + 1}')


def _check_present(items: Items, paths: Sequence[str], label: str, dot_notation: bool, node: str) -> None:
    for path in paths:
        if not any(_lookup(item, path, dot_notation) is not _MISSING for item in items):
            raise NodeFailed(f"{node}: Field '{path}' is not present in any of items in '{label}'")


def merge_by_fields(first: Items, second: Items, fields: Sequence[tuple[str, str]], *, join: str = "keepMatches",
                    output_from: str = "both", clash: str | None = None, clash_options: dict[str, Any] | None = None,
                    check_fields: bool = False, dot_notation: bool = True, first_match_only: bool = False,
                    node: str = "Merge", in_place: bool = False) -> Items:
    """Return a Merge combining items whose fields match (n8n's "combine by matching fields").

    ``join`` is keepMatches, keepNonMatches, keepEverything, enrichInput1 or enrichInput2;
    ``output_from`` input1, input2 or both (keepNonMatches ``both`` tags each item with its
    ``_source``). ``clash``: preferInput2, preferInput1 or addSuffix; None is n8n's default
    (preferInput1 when enriching input 2, else preferInput2); ``""`` (what n8n reads when the
    clash settings are written without a choice of side) merges each pair into an empty item. ``check_fields`` (Merge v2.0)
    fails the node, as n8n does, when no item of an input has a field to match. Raises NodeFailed
    for an empty "Fields to Match" pair, its message starting with ``node``. The order is n8n's: matches in input 1's order (each
    item once per match it has, where items are merged), then the unmatched ones. ``in_place``
    (Merge v2, whose inputs are n8n's own items): a "Minimize Empty Fields" deep merge writes into
    the input items' nested objects, which the node before shows changed in n8n too.
    """
    check_match_fields(fields, node)
    if not in_place:
        first, second = _private(first, clash_options or {}), _private(second, clash_options or {})
    if check_fields:
        _check_present(first, [f for f, _ in fields], "Input 1", dot_notation, node)
        _check_present(second, [f for _, f in fields], "Input 2", dot_notation, node)
    if not first or not second:
        return _one_side_empty(first, second, join, output_from)
    if not fields:
        return [] if join in ("keepMatches", "keepEverything", "enrichInput2") else list(first)
    grouped = output_from != "both" and join not in ("enrichInput1", "enrichInput2")
    matched, unmatched_first, hit = _find(first, second, fields, dot_notation, first_match_only, grouped)
    matched_second = [item for i, item in enumerate(second) if i in hit]
    unmatched_second = [item for i, item in enumerate(second) if i not in hit]
    options = clash_options or {}
    if join in ("keepMatches", "keepEverything"):
        output = ([entry for entry, _ in matched] if output_from == "input1" else
                  matched_second if output_from == "input2" else
                  _merged(matched, "preferInput2" if clash is None else clash, options) if output_from == "both" else [])
        if join == "keepEverything":
            lone = (_suffixed(unmatched_first, "1") + _suffixed(unmatched_second, "2") if clash == "addSuffix"
                    else unmatched_first + unmatched_second)
            output = output + lone
        return output
    if join == "keepNonMatches":
        if output_from == "input1":
            return unmatched_first
        if output_from == "input2":
            return unmatched_second
        return ([{**i, "json": {**(i.get("json") or {}), "_source": "input1"}} for i in unmatched_first]
                + [{**i, "json": {**(i.get("json") or {}), "_source": "input2"}} for i in unmatched_second])
    default = "preferInput1" if join == "enrichInput2" else "preferInput2"
    merged = _merged(matched, default if clash is None else clash, options)
    lone, suffix = (unmatched_first, "1") if join == "enrichInput1" else (unmatched_second, "2")
    return merged + (_suffixed(lone, suffix) if clash == "addSuffix" else lone)


def _one_side_empty(first: Items, second: Items, join: str, output_from: str) -> Items:
    if not first and join == "keepNonMatches" and output_from == "input1":
        return []
    if not second and join == "keepNonMatches" and output_from == "input2":
        return []
    if join == "keepMatches" or (join == "enrichInput1" and not first) or (join == "enrichInput2" and not second):
        return []
    return [*first, *second]


def _find(first: Items, second: Items, fields: Sequence[tuple[str, str]], dot_notation: bool,
          first_match_only: bool, grouped: bool) -> tuple[list[tuple[Item, Items]], Items, set[int]]:
    matched: list[tuple[Item, Items]] = []
    unmatched: Items = []
    hit: set[int] = set()
    for entry in first:
        wanted = {two: _lookup(entry, one, dot_notation) for one, two in fields}  # keyed by field 2, as n8n
        if any(v is _MISSING for v in wanted.values()):
            unmatched.append(entry)
            continue
        found = [i for i, other in enumerate(second)
                 if all((got := _lookup(other, path, dot_notation)) is not _MISSING and same(v, got)
                        for path, v in wanted.items())]
        found = found[:1] if first_match_only else found
        hit.update(found)
        if not found:
            unmatched.append(entry)
        elif grouped:
            matched.append((entry, [second[i] for i in found]))
        else:
            matched.extend((entry, [second[i]]) for i in found)
    return matched, unmatched, hit


def _binary(item: Item) -> dict[str, Any]:
    return dict(item.get("binary") or {})


def _with_binary(item: Item, binary: dict[str, Any]) -> Item:
    """Return the merged item with its binary data (n8n writes ``binary: {}`` too: an empty one is left out)."""
    return {**item, "binary": binary} if binary else item


def _merged(matched: list[tuple[Item, Items]], clash: str, options: dict[str, Any]) -> Items:
    merge = _merger(options)
    out: Items = []
    for entry, matches in matched:
        binary: dict[str, Any] = {}
        if clash == "addSuffix":  # the json's keys are suffixed, the binary's are not
            (suffixed,) = _suffixed([entry], "1")
            json = merge(suffixed["json"], *(m["json"] for m in _suffixed(matches, "2")))
            binary = merge(_binary(entry), *(_binary(m) for m in matches))
        elif clash == "preferInput1":
            json = merge(*(m.get("json") or {} for m in matches), entry.get("json") or {})
            binary = merge(*(_binary(m) for m in matches), _binary(entry))
        elif clash == "preferInput2":
            json = merge(entry.get("json") or {}, *(m.get("json") or {} for m in matches))
            binary = merge(_binary(entry), *(_binary(m) for m in matches))
        else:  # n8n merges nothing for a clash setting it has no branch for ("" when only the merge mode is set)
            json = {}
        out.append(_with_binary({"json": json}, binary))
    return out


def merge_multiplex(first: Items, second: Items, clash: str | None = None,
                    clash_options: dict[str, Any] | None = None, in_place: bool = False) -> Items:
    """Return a Merge of every pair (v2 "multiplex", v3 "combine all"): input 1 × input 2.

    ``in_place`` as for ``merge_by_fields`` (v2: n8n merges into its own input items).
    """
    if clash == "preferInput1":
        first, second = second, first
    if clash == "addSuffix":
        first, second = _suffixed(first, "1"), _suffixed(second, "2")
    merge = _merger(clash_options or {})
    if not in_place:
        first, second = _private(first, clash_options or {}), _private(second, clash_options or {})
    return [_with_binary({"json": merge(a.get("json") or {}, b.get("json") or {})}, deep_merge(_binary(a), _binary(b)))
            for a in first for b in second]


def merge_by_position_v2(first: Items, second: Items, clash: str | None = None,
                         clash_options: dict[str, Any] | None = None, include_unpaired: bool = False) -> Items:
    """Return Merge v2's "merge by position": the n-th items merged (input 2 wins by default)."""
    if not first or not second:
        return [*first, *second]
    if clash == "preferInput1":
        first, second = second, first
    if clash == "addSuffix":
        first, second = _suffixed(first, "1"), _suffixed(second, "2")
    merge = _merger(clash_options or {})
    count = max(len(first), len(second)) if include_unpaired else min(len(first), len(second))
    out: Items = []
    for i in range(count):
        if i >= len(first):
            out.append(second[i])
        elif i >= len(second):
            out.append(first[i])
        else:
            out.append(_with_binary({"json": merge(first[i].get("json") or {}, second[i].get("json") or {})},
                                    deep_merge(_binary(first[i]), _binary(second[i]))))
    return out


def merge_by_position(inputs: Sequence[Items], clash: str | None = None, clash_options: dict[str, Any] | None = None,
                      include_unpaired: bool = False) -> Items:
    """Return Merge v3's "combine by position": the n-th items of every input merged, the preferred last."""
    preferred_index = int(clash.replace("preferInput", "")) - 1 if clash and "preferInput" in clash else len(inputs) - 1
    preferred = inputs[preferred_index] if preferred_index < len(inputs) else []
    data = [_suffixed(items, str(i + 1)) for i, items in enumerate(inputs)] if clash == "addSuffix" else list(inputs)
    lengths = [len(items) for items in data] + [len(preferred)]
    count = max(lengths) if include_unpaired else min(lengths)
    merge = _merger(clash_options or {})
    out: Items = []
    for i in range(count):
        rest = [items[i].get("json") or {} if i < len(items) else {} for items in data]
        last = preferred[i].get("json") or {} if i < len(preferred) else {}
        binary = deep_merge(*(_binary(items[i]) for items in data if i < len(items)),
                            _binary(preferred[i]) if i < len(preferred) else {})
        out.append(_with_binary({"json": merge({}, *rest, last)}, binary))
    return out
