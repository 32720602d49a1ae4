"""Make's data stores at run time (``datastore:*`` modules) as calls to a ``make-datastore`` provider
whose REST shape is Make's API (https://developers.make.com/api-documentation, "Data stores > Data"):

- ``GET /data-stores/{id}/data?pg[limit]=…&pg[offset]=…`` lists records ``{"records": [{"key", "data"}], …}``;
- (``POST /data-stores/{id}/data`` adds one, ``PUT``/``PATCH …/data/{key}`` replace or update it,
  ``DELETE /data-stores/{id}/data`` ``{"keys": [...]}`` deletes: their modules are not translated yet).

The calls go through ``ctx.call``, so a shadow replay answers them from the legacy run (the
module's recorded output bundles, taken as they are) and a live run reaches the store
(the provider's base URL is ``https://<zone>.make.com/api/v2``, its token the provider's auth).

"Search records" filters and sorts the listed records here, as Make's filter does
(``_make_filter``: ``a`` names a field of the record, or ``key``), keeps ``limit`` of them and
outputs one bundle ``{"key", "data"}`` per record; none when nothing matched (the route stops),
or one empty bundle with "Continue the execution of the route even if the module finds no matches".
"""

from __future__ import annotations

from typing import Any

from ..errors import ModuleFailed
from ._make_filter import number, passes, text
from ._n8n_records import offline

__all__ = ["search_records"]

PAGE = 1000


def _json(response: Any, step: str) -> Any:
    try:
        return response.json()
    except ValueError:
        raise ModuleFailed(f"step {step!r}: the data store's answer is not JSON ({response.text[:200]!r})") from None


def _recorded(body: Any) -> list[dict[str, Any]]:
    """The module's recorded output bundles (a shadow replay's answer: a list of them, or the one)."""
    if isinstance(body, list):
        return [b for b in body if isinstance(b, dict)]
    return [body] if isinstance(body, dict) and body else []


def _field(record: dict[str, Any], name: Any) -> Any:
    key = text(name)
    if key == "key":
        return record.get("key")
    data = record.get("data")
    return data.get(key) if isinstance(data, dict) else None


def _matches(record: dict[str, Any], conditions: list[list[tuple[str, Any, Any]]]) -> bool:
    if not conditions:
        return True
    resolved = [[(op, _field(record, a), b) for op, a, b in group] for group in conditions]
    return passes(resolved)


def _by(key: Any) -> Any:
    """The sort key of records by the field ``key``: numbers first, then text, then missing values."""
    return lambda record: _sort_key(_field(record, key))


def _sort_key(value: Any) -> tuple[int, Any]:
    parsed = number(value)
    if parsed is not None:
        return (0, parsed)
    return (1 if value is not None else 2, text(value))


async def search_records(ctx: Any, provider: str, store: Any, *, step: str, conditions: list[list[tuple[str, Any, Any]]],
                         sort: list[tuple[Any, Any]] = (), limit: Any = None,  # type: ignore[assignment]
                         continue_when_none: bool = False) -> list[dict[str, Any]]:
    """Return "Search records"' bundles (see the module docstring)."""
    records: list[dict[str, Any]] = []
    offset = 0
    while True:
        response = await ctx.call(provider, "GET", f"/data-stores/{text(store)}/data", step=step,
                                  params={"pg[limit]": str(PAGE), "pg[offset]": str(offset)})
        body = _json(response, step)
        if offline(response):
            return _recorded(body)
        if not isinstance(body, dict) or not isinstance(body.get("records"), list):
            raise ModuleFailed(f"step {step!r}: the data store's answer has no records: {str(body)[:200]}")
        page = [r for r in body.get("records") or [] if isinstance(r, dict)]
        records += page
        if len(page) < PAGE:
            break
        offset += PAGE
    found = [{"key": r.get("key"), "data": r.get("data")} for r in records if _matches(r, conditions)]
    for key, order in reversed(list(sort)):
        found.sort(key=_by(key), reverse=number(order) == -1)
    most = number(limit)
    if most is not None and most > 0:
        found = found[:int(most)]
    if not found and continue_when_none:
        return [{}]
    return found
