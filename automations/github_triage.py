"""GitHub issue triage, migrated from an n8n workflow ("GitHub issue triage").

On each ``issues`` webhook delivery: ignore everything but newly opened issues, classify the issue
(bug / feature / question / other) from its labels and title, set a priority, add labels through
the GitHub API, and post a canned comment on bugs and questions.

Known difference from the legacy workflow: n8n's Switch matched title keywords case-sensitively,
so "Crash on save" was routed as "other". This code matches case-insensitively, on purpose.
"""

from __future__ import annotations

from typing import Any

from queue_core import Context, Trigger, automation

BUG_WORDS = ("bug", "crash", "error", "exception")
FEATURE_WORDS = ("feature", "support for", "would be nice")
URGENT_WORDS = ("urgent", "crash", "security", "data loss")
URGENT_LABELS = frozenset({"p1", "critical", "security"})
ROUTE_LABEL = {"bug": "bug", "feature": "enhancement", "question": "question", "other": "triage"}
COMMENTS = {
    "bug": "Thanks for the report! A maintainer will try to reproduce this shortly.",
    "question": "Thanks for asking! Have a look at the discussions board while we get to this.",
}


def _labels(issue: dict[str, Any]) -> set[str]:
    return {str(label.get("name", "")).lower() for label in issue.get("labels") or []}


def classify(issue: dict[str, Any]) -> str:
    """Return the issue's route: bug, feature, question or other."""
    labels, title = _labels(issue), str(issue.get("title") or "").lower()
    if "bug" in labels or any(word in title for word in BUG_WORDS):
        return "bug"
    if labels & {"enhancement", "feature"} or any(word in title for word in FEATURE_WORDS):
        return "feature"
    if "question" in labels or title.rstrip().endswith("?"):
        return "question"
    return "other"


def prioritise(issue: dict[str, Any]) -> str:
    """Return ``high`` for urgent labels or words in the title, else ``normal``."""
    title = str(issue.get("title") or "").lower()
    urgent = _labels(issue) & URGENT_LABELS or any(word in title for word in URGENT_WORDS)
    return "high" if urgent else "normal"


@automation("github-triage", version=2)
async def github_triage(ctx: Context, trigger: Trigger) -> None:
    """Label, prioritise and acknowledge a newly opened GitHub issue."""
    event = trigger.body
    opened = event.get("action") == "opened"
    ctx.decide("opened", opened)
    if not opened:
        return
    issue = event["issue"]
    route, priority = classify(issue), prioritise(issue)
    ctx.decide("route", route)
    ctx.decide("priority", priority)
    base = f"/repos/{event['repository']['full_name']}/issues/{issue['number']}"
    labels = [ROUTE_LABEL[route], f"priority:{priority}"]
    await ctx.call("github", "POST", f"{base}/labels", json={"labels": labels}, step="add-labels")
    if route in COMMENTS:
        await ctx.call("github", "POST", f"{base}/comments", json={"body": COMMENTS[route]}, step="comment")
