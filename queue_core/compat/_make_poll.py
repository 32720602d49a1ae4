"""Make's polling Watch triggers at run time (``make.poll.watch_rows(…)``): a live tick finds the new items.

A Watch trigger remembers where it stopped and, on each scheduled run, outputs only what is new,
each item one bundle. A scaffolded scenario's live schedule tick (``make.first_bundle`` is None)
runs the trigger module: it reads the poller's durable cursor (``ctx.poll_cursor``), fetches,
keeps the items past the cursor (at most the module's ``limit``, oldest first) and hands them to
``ctx.start_new`` with the scenario itself as the target: one job per new item (dedupe on the
item's id, ``queue_core.poller``), whose trigger (source ``poll``) is the item's bundle, the form
``cutover import make`` gives each bundle of a recorded poll. The tick then returns no bundle
of its own. The first poll starts from now (Make's default "From now on"): it records where the
source stands and starts nothing.

- Watch rows (``google-sheets:watchRows``): new rows below the last row seen (cursor ``{"row": n}``),
  up to the first blank row ("If a sheet contains a blank row, Make doesn't process all subsequent
  rows", apps.make.com/google-sheets-modules); each bundle ``__ROW_NUMBER__``, ``__SPREADSHEET_ID__``, ``__SHEET__`` and the cells ``"0"``, ``"1"``….
- Watch emails (``google-email:triggerWatchNewEmails``): ``_make_googlemail.watch_emails``.
- Watch files in a folder (``google-drive:watchFilesInAFolder``): ``_make_googledrive.watch_files``.
- Instant app webhooks whose bundle is the delivery reshaped: Tally's Watch new responses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._make_filter import number, text
from ._make_google import read_values, start_row, spreadsheet_id

__all__ = ["positive_limit", "start_items", "tally_bundle", "watch_rows"]


async def start_items(ctx: Any, bundles: list[dict[str, Any]], *, id_of: Callable[[Any], Any], cursor: Any) -> list[Any]:
    """Start one job of this scenario per new bundle, advance the cursor; return the tick's bundles (none)."""
    await ctx.start_new(ctx.automation, bundles, id_of=id_of, cursor=cursor)
    return []


def positive_limit(value: Any) -> int | None:
    """Return a module's limit as a positive count, or None for none (empty, 0 or not a number)."""
    found = number(value)
    return int(found) if found is not None and found > 0 else None


async def watch_rows(ctx: Any, provider: str, *, step: str, spreadsheet: Any, sheet: Any, first_row: Any = "A1:Z1",
                     headers: bool = True, limit: Any = None, render: Any = None, dates: Any = None) -> list[Any]:
    """Watch rows: start a job per row added below the last row seen (at most ``limit`` per poll)."""
    cursor = await ctx.poll_cursor(default=None)
    area = text(first_row or "A1:Z1").strip()
    start, end = (area.split(":") + [""])[:2]
    row1 = start_row(start)
    first_col = "".join(c for c in start if c.isalpha()) or "A"
    last_col = "".join(c for c in end if c.isalpha()) or first_col
    found, sid, values = await read_values(ctx, provider, step, spreadsheet, sheet, f"{first_col}{row1}:{last_col}", render, dates)
    if found is not None:  # a shadow answer: the recorded bundles are the items
        rows_found = found if isinstance(found, list) else [found]
        return await start_items(ctx, [r for r in rows_found if isinstance(r, dict)],
                                 id_of=lambda b: b.get("__ROW_NUMBER__"), cursor=cursor)
    numbered = [(row1 + i, row) for i, row in enumerate(values)][1 if headers else 0:]
    filled = []
    for n, row in numbered:  # Make: a blank row ends the sheet, the rows after it are not processed
        if not any(text(c) != "" for c in row):
            break
        filled.append((n, row))
    if cursor is None:  # the first poll: from now on
        last_row = filled[-1][0] if filled else (row1 if headers else row1 - 1)
        return await start_items(ctx, [], id_of=lambda b: b["__ROW_NUMBER__"], cursor={"row": last_row})
    seen = int(number(cursor.get("row")) or 0) if isinstance(cursor, dict) else 0
    new = [(n, row) for n, row in filled if n > seen]
    top = positive_limit(limit)
    new = new[:top] if top else new
    bundles = [{"__ROW_NUMBER__": n, "__SPREADSHEET_ID__": spreadsheet_id(spreadsheet), "__SHEET__": text(sheet),
                **{str(i): cell for i, cell in enumerate(row)}} for n, row in new]
    return await start_items(ctx, bundles, id_of=lambda b: b["__ROW_NUMBER__"],
                             cursor={"row": new[-1][0] if new else max(seen, 0)})


def tally_bundle(trigger: Any) -> dict[str, Any]:
    """Return Tally's Watch new responses bundle from the form's webhook delivery.

    Tally posts ``{eventId, eventType, createdAt, data: {responseId, submissionId, respondentId,
    formId, formName, createdAt, fields: [{key, label, type, value}]}}``; Make's bundle lifts
    ``data`` and gives the answers twice: ``fields`` by question label, ``fieldsById`` by key.
    A delivery that is already the bundle (a replay's recorded one) is returned as it is.
    """
    body = getattr(trigger, "body", None)
    if not isinstance(body, dict):
        return {}
    data = body.get("data")
    if not isinstance(data, dict) or "fieldsById" in body:
        return body
    answers = [f for f in data.get("fields") or [] if isinstance(f, dict)]
    bundle = {"eventId": body.get("eventId")}
    bundle.update({k: data.get(k) for k in ("responseId", "submissionId", "respondentId", "formId", "formName", "createdAt")})
    bundle["fields"] = {text(f.get("label")): f.get("value") for f in answers}
    bundle["fieldsById"] = {text(f.get("key")): f.get("value") for f in answers}
    return bundle
