"""Open-bugs digest, migrated from an n8n workflow ("Open bugs digest"), schedule-triggered.

Every hour on the hour (Europe/Berlin): outside office hours (Monday to Friday, 08:00 to 18:00
Berlin time) do nothing; otherwise search GitHub for the open bugs of octo-org/hello-world and,
when there are any, post a digest to the #triage Slack channel.

The legacy workflow's Schedule Trigger ran in the workflow's timezone (Europe/Berlin); the office
hours are Berlin's, so the tick is converted there (a tick at 06:00Z is 08:00 in Berlin in June).
The tick comes from ``ctx.now()``: the schedule's instant live, the recorded tick in a replay.
"""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from queue_core import Context, Trigger, automation

TIMEZONE = "Europe/Berlin"
BERLIN = ZoneInfo(TIMEZONE)
OFFICE_HOURS = range(8, 18)
SEARCH = ("/search/issues?q=repo%3Aocto-org%2Fhello-world+is%3Aissue+is%3Aopen+label%3Abug"
          "&sort=created&order=desc&per_page=5")
CHANNEL = "#triage"


def in_office_hours(local: Any) -> bool:
    """Return whether a Berlin wall time is Monday to Friday, 08:00 to 17:59."""
    return bool(local.weekday() < 5 and local.hour in OFFICE_HOURS)


def digest_text(local: Any, total: int, items: list[dict[str, Any]]) -> str:
    """Return the Slack message: the count, then the newest bugs one a line."""
    lines = [f"{total} open bug{'s' if total != 1 else ''} in octo-org/hello-world ({local:%a %d %b, %H:%M})"]
    lines += [f"• #{item.get('number')} {item.get('title')} <{item.get('html_url')}>" for item in items]
    return "\n".join(lines)


@automation("bug-digest", version=1, schedule="0 * * * *", timezone=TIMEZONE)
async def bug_digest(ctx: Context, trigger: Trigger) -> None:
    """Post the open-bugs digest during Berlin office hours."""
    local = ctx.now().astimezone(BERLIN)
    office = in_office_hours(local)
    ctx.decide("office_hours", office)
    if not office:
        return
    found = (await ctx.call("github", "GET", SEARCH, step="search-bugs")).json()
    total = int(found.get("total_count") or 0)
    ctx.decide("has_bugs", total > 0)
    if total == 0:
        return
    text = digest_text(local, total, list(found.get("items") or []))
    await ctx.call("slack", "POST", "/api/chat.postMessage", json={"channel": CHANNEL, "text": text},
                   step="post-digest")
