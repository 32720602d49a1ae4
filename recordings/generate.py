"""Generate the demo recording set ``recordings/2024-06`` from synthetic exports, deterministically.

    python recordings/generate.py --out recordings/2024-06 --triggers 2400 --seed 1

The set is built the way a real one is: synthetic data is written in each platform's own export
format under ``exports/`` (run histories, plus the workflow definitions under
``exports/definitions/``), deliveries the platforms do not export are recorded through the tap
(``harness.recorder``), and then the real importers (``harness.importer.pipeline.import_export``)
turn them into the set's ``triggers.jsonl``/``legacy.jsonl`` and ``manifest.toml``. Four
automations migrated from three platforms, with the quirks real migrations meet:

* ``github-triage`` (n8n, webhook): GitHub ``issues`` deliveries inside n8n's executions (the
  public API's ``GET /executions?includeData=true`` list), which n8n keeps for 14 days, with the
  workflow download as the definition: each execution is what n8n runs that workflow to on its
  delivery, node by node and item by item (tests/e2e/test_demo_definition.py replays them all
  through it), so ``cutover scaffold`` can start from it. n8n's Switch matched title keywords
  case-sensitively, so "Crash on save" went to "other" where the migrated code says "bug": a
  real disagreement cluster (NOT READY). A few runs failed on a GitHub 502.
* ``bug-digest`` (n8n, schedule): an hourly Schedule Trigger (Europe/Berlin); its executions carry
  the tick's timestamp fields as the Schedule Trigger emits them. Office hours are Berlin's, so a
  replay must run at the tick, in the right timezone (READY).
* ``payment-dunning`` (Zapier): Stripe ``invoice.payment_failed`` events recorded by the tap; the
  zap runs (``GET /v2/zap-runs``, ``data_in`` mostly ``""``) pair with them by event id where a run
  shows its input, else by time. With the Zapfile (``gdpr_v1``) the runs prove status, path and
  decisions, not the emails sent: READY on that evidence only.
* ``lead-router`` (Make): web-form leads recorded by the tap, paired by time with Make's scenario
  logs (``GET /scenarios/{id}/logs``, with the execution detail of failed runs) and the blueprint.
  Make logs prove statuses only: NOT READY until the evidence is deeper (or the gate accepts it).

The same seed always gives the same bytes. ``--triggers 100000`` scales the set for benchmarks
(the hourly schedule's ticks are fixed by its window: 336 in n8n's 14 days).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import string
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any
from unittest import mock
from urllib.parse import quote
from zoneinfo import ZoneInfo

import httpx

from harness import recorder
from harness.importer.pipeline import ImportRequest, import_export
from harness.importer.summary import DEFAULT_LIMITS
from harness.manifest import AutomationEntry, Coercion, DecisionMap, Manifest, Redaction, Window, write_manifest
from harness.recorder import RecorderConfig, build_app
from harness.recording import Platform
from harness.redact import policy_from_settings
from queue_core.server.verify import github_signature

# A public salt for public demo data: real sets take theirs from CUTOVER_REDACTION_SALT.
DEMO_SALT = b"cutover-demo-2024-06 (public demo salt, never reuse)"
WINDOW = Window(datetime(2024, 6, 1, tzinfo=UTC), datetime(2024, 6, 30, 23, 59, 59, tzinfo=UTC))
N8N_FROM = datetime(2024, 6, 17, tzinfo=UTC)  # n8n's 14-day retention when exported on July 1
EXPORTED = datetime(2024, 7, 1, 8, 0, tzinfo=UTC)  # when the exports were taken and imported
SHARES = {"github-triage": 0.4, "payment-dunning": 0.35, "lead-router": 0.25}
REDACTION = Redaction(
    headers=("x-forwarded-for",),
    json_paths=("data.object.customer_email", "data.object.customer_name", "phone"),
)
EXPORTS = "exports"
DEFINITIONS = f"{EXPORTS}/definitions"
BERLIN = ZoneInfo("Europe/Berlin")
VERBOSE = False  # print each import's summary (the command line sets it)

REPOS = [("octo-org", "hello-world", 1296269), ("octo-org", "api-gateway", 7340112), ("acme", "web-app", 5531906)]
USERS = ["Codertocat", "mona", "hubot", "octocat", "jdoe-dev", "priya-k", "lukas-w", "amina-b", "tchen", "rsantos"]
TITLES = [
    ("bug", "App crashes when saving a draft"), ("bug", "Crash on startup after upgrade to 2.3"),
    ("bug", "Error: cannot read property 'id' of undefined"), ("bug", "Login page shows a blank screen"),
    ("bug", "Exception in export job"), ("bug", "Bug: pagination skips the last page"),
    ("feature", "Feature request: dark mode"), ("feature", "Add support for SAML login"),
    ("feature", "It would be nice to export CSV"), ("question", "How do I rotate API keys?"),
    ("question", "Is there a rate limit on the search endpoint?"), ("other", "Update the README badges"),
    ("other", "Docs: typo in installation guide"), ("other", "Urgent: data loss after migration"),
    ("other", "Security: dependency alert for lodash"),
]
LABELS = {"bug": ("d73a4a", "Something isn't working"), "enhancement": ("a2eeef", "New feature or request"),
          "question": ("d876e3", "Further information is requested"), "P1": ("b60205", "Fix first"),
          "documentation": ("0075ca", "Improvements or additions to documentation"),
          "triage": ("fbca04", "Needs a first look"), "priority:high": ("b60205", None), "priority:normal": ("c2e0c6", None)}
LABEL_IDS = {name: 1_362_934_389 + i for i, name in enumerate(LABELS)}  # the repositories' labels, by name
PLANS = [("free", 0.12), ("starter", 0.45), ("pro", 0.33), ("enterprise", 0.10)]
AMOUNTS = [900, 1900, 2900, 4900, 4970, 4990, 9900, 12_450, 19_900, 24_970, 49_900]
FIRST = ["Ana", "Bo", "Chen", "Dana", "Elif", "Femi", "Greta", "Hiro", "Ines", "Jonas", "Kofi", "Lena", "Mateo"]
LAST = ["Silva", "Novak", "Okafor", "Schmidt", "Tanaka", "Moreau", "Kowalski", "Haddad", "Larsen", "Rossi"]
COMPANIES = [("Globex", "globex.example", 5200), ("Initech", "initech.example", 40), ("Umbrella", "umbrella.example", None),
             ("Hooli", "hooli.example", 12_000), ("Vandelay", "vandelay.example", 85), ("Stark", "stark.example", 1000),
             ("Wayne", "wayne.example", 1001), ("Soylent", "soylent.example", 300), ("Tyrell", "tyrell.example", 2500)]
FREE_DOMAINS = ["gmail.com", "yahoo.com", "outlook.com", "proton.me"]


def _at(start: datetime, end: datetime, rng: random.Random) -> datetime:
    seconds = rng.randrange(int((end - start).total_seconds()))
    return start + timedelta(seconds=seconds, milliseconds=rng.randrange(1000))


def _token(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(n))


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _iso(at: datetime, digits: int = 3) -> str:
    """``2024-06-17T09:12:00.123Z`` (``digits`` 3 or 6 fractional digits)."""
    text = at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")
    return f"{text[:len(text) - 6 + digits]}Z"


def _ms(at: datetime) -> int:
    return int(at.timestamp() * 1000)


def _dump(path: Path, document: Any) -> None:
    """Write an export as the platform's API returns it: compact JSON, UTF-8, one final newline."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")


def _dump_pretty(path: Path, document: Any) -> None:
    """Write a definition as the editor's download gives it: indented JSON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


# --- github-triage: n8n executions of a webhook workflow -------------------------------------------

TRIAGE_WORKFLOW_ID = "7"
TRIAGE_NAME = "GitHub issue triage"
ROUTE_WORDS = {"bug": ("bug", "crash", "error", "exception"), "feature": ("feature", "support for", "would be nice")}


def _user(login: str, ident: int) -> dict[str, Any]:
    return {"login": login, "id": ident, "node_id": f"MDQ6VXNlcj{ident}", "html_url": f"https://github.com/{login}",
            "type": "User", "site_admin": False}


def _repository(owner: str, name: str, ident: int) -> dict[str, Any]:
    return {"id": ident, "node_id": f"MDEwOlJlcG9zaXRvcnk{ident}", "name": name, "full_name": f"{owner}/{name}",
            "private": False, "owner": _user(owner, ident // 7), "html_url": f"https://github.com/{owner}/{name}",
            "default_branch": "main", "visibility": "public"}


def _issue_event(rng: random.Random, number: int) -> dict[str, Any]:
    owner, name, repo_id = rng.choice(REPOS)
    kind, title = rng.choice(TITLES)
    if rng.random() < 0.35:
        title = title[0].lower() + title[1:]
    names = {"bug": ["bug"], "feature": ["enhancement"], "question": ["question"], "other": []}[kind]
    names = names if rng.random() < 0.5 else []
    names += ["P1"] if rng.random() < 0.1 else []
    login = rng.choice(USERS)
    api = f"https://api.github.com/repos/{owner}/{name}/issues/{number}"
    issue = {"url": api, "html_url": f"https://github.com/{owner}/{name}/issues/{number}",
             "id": 2_300_000_000 + number, "node_id": f"I_kwDO{_token(rng, 10)}", "number": number, "title": title,
             "user": _user(login, 21_031_067 + USERS.index(login)),
             "labels": [{"id": LABEL_IDS[n], "name": n, "color": LABELS[n][0],
                         "default": n in ("bug", "enhancement", "question"), "description": LABELS[n][1]}
                        for n in names],
             "state": "open", "locked": False, "assignees": [], "milestone": None, "comments": 0,
             "created_at": "2024-06-01T00:00:00Z", "updated_at": "2024-06-01T00:00:00Z", "closed_at": None,
             "author_association": "NONE",
             "body": rng.choice([None, "Steps to reproduce:\n1. Open the app\n2. Click save", "See title."]),
             "state_reason": None}
    action = rng.choices(["opened", "edited", "labeled", "closed", "reopened"], [70, 10, 10, 8, 2])[0]
    if action == "closed":
        issue["state"], issue["state_reason"] = "closed", "completed"
    return {"action": action, "issue": issue, "repository": _repository(owner, name, repo_id), "sender": issue["user"]}


def _legacy_route(issue: dict[str, Any]) -> str:
    """What n8n's Switch did: title keywords matched case-sensitively, labels lower-cased."""
    labels = {str(label["name"]).lower() for label in issue["labels"]}
    title = issue["title"]
    if "bug" in labels or any(word in title for word in ROUTE_WORDS["bug"]):
        return "bug"
    if labels & {"enhancement", "feature"} or any(word in title for word in ROUTE_WORDS["feature"]):
        return "feature"
    if "question" in labels or title.rstrip().endswith("?"):
        return "question"
    return "other"


def _priority(issue: dict[str, Any]) -> str:
    labels = {str(label["name"]).lower() for label in issue["labels"]}
    title = issue["title"].lower()
    urgent = labels & {"p1", "critical", "security"} or any(w in title for w in ("urgent", "crash", "security", "data loss"))
    return "high" if urgent else "normal"


def _node(name: str, kind: str, version: float, position: list[int], parameters: dict[str, Any],
          rng: random.Random, **extra: Any) -> dict[str, Any]:
    return {"parameters": parameters, "id": _uuid(rng), "name": name, "type": kind, "typeVersion": version,
            "position": position, **extra}


def _condition(left: str, operator: dict[str, Any], right: Any, rng: random.Random) -> dict[str, Any]:
    return {"id": _uuid(rng), "leftValue": left, "rightValue": right, "operator": operator}


def _switch_rule(key: str, conditions: list[dict[str, Any]]) -> dict[str, Any]:
    return {"conditions": {"options": {"caseSensitive": True, "leftValue": "", "typeValidation": "loose"},
                           "conditions": conditions, "combinator": "or"}, "renameOutput": True, "outputKey": key}


ROUTE_LABEL = {"bug": "bug", "feature": "enhancement", "question": "question", "other": "triage"}
COMMENTS = {"bug": "Thanks for the report! A maintainer will try to reproduce this shortly.",
            "question": "Thanks for asking! Have a look at the discussions board while we get to this."}
TAG_NODES = {route: f"Tag {route}" for route in ROUTE_LABEL}
PRIORITY_NODES = {"high": "High priority", "normal": "Normal priority"}


def _fields(name: str, position: list[int], values: dict[str, str], rng: random.Random) -> dict[str, Any]:
    """An Edit Fields (Set v3.4) node that adds constant fields and keeps the item's other fields."""
    assignments = [{"id": _uuid(rng), "name": key, "value": value, "type": "string"} for key, value in values.items()]
    return _node(name, "n8n-nodes-base.set", 3.4, position, {"mode": "manual", "assignments": {"assignments": assignments},
                                                             "includeOtherFields": True, "options": {}}, rng)


def _github_post(name: str, position: list[int], tail: str, body: str, rng: random.Random) -> dict[str, Any]:
    url = "=https://api.github.com/repos/{{ $json.repo }}/issues/{{ $json.number }}/" + tail
    return _node(name, "n8n-nodes-base.httpRequest", 4.2, position, {
        "method": "POST", "url": url, "authentication": "predefinedCredentialType", "nodeCredentialType": "githubApi",
        "sendBody": True, "specifyBody": "json", "jsonBody": body, "options": {}}, rng,
        credentials={"githubApi": {"id": "3", "name": "GitHub account"}})


def _triage_rules(rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The Route and Priority Switch rules: keywords matched case-sensitively, as the workflow had them."""
    contains = {"type": "string", "operation": "contains"}
    always = {"type": "boolean", "operation": "true", "singleValue": True}
    title, labels = "={{ $json.title }}", "={{ $json.labels.join(',') }}"
    route_rules = [
        _switch_rule("bug", [_condition(labels, contains, "bug", rng)]
                     + [_condition(title, contains, word, rng) for word in ROUTE_WORDS["bug"]]),
        _switch_rule("feature", [_condition(labels, contains, "enhancement", rng)]
                     + [_condition(title, contains, word, rng) for word in ROUTE_WORDS["feature"]]),
        _switch_rule("question", [_condition(labels, contains, "question", rng),
                                  _condition(title, {"type": "string", "operation": "endsWith"}, "?", rng)]),
        _switch_rule("other", [_condition("={{ true }}", always, "", rng)]),
    ]
    urgent = [_condition(labels, contains, word, rng) for word in ("p1", "critical", "security")] + [
        _condition("={{ $json.title.toLowerCase() }}", contains, word, rng) for word in ("urgent", "crash", "security", "data loss")]
    return route_rules, [_switch_rule("high", urgent), _switch_rule("normal", [_condition("={{ true }}", always, "", rng)])]


def _to(*names: str) -> list[dict[str, Any]]:
    return [{"node": name, "type": "main", "index": 0} for name in names]


def triage_workflow(rng: random.Random) -> dict[str, Any]:
    """The n8n workflow as the editor's "Download" gives it: what n8n ran for every execution below.

    Each Switch output goes to an Edit Fields node that writes what later nodes read (``route``,
    ``label``, ``comment``; ``priority``), since an item does not carry the output it left by. Only
    the bug and question tags connect to "Post comment", below "Priority" on the canvas, so n8n's v1
    order runs the labelling branch first: labels, then the comment, on the tag's one item (not on
    the labels call's response, a JSON array that n8n splits into one item per label).
    """
    route_rules, priority_rules = _triage_rules(rng)
    nodes = [
        _node("GitHub Webhook", "n8n-nodes-base.webhook", 2, [0, 300],
              {"httpMethod": "POST", "path": "github-triage", "options": {}}, rng, webhookId=_uuid(rng)),
        _node("Issue fields", "n8n-nodes-base.set", 3.4, [220, 300], {"mode": "manual", "assignments": {"assignments": [
            {"id": _uuid(rng), "name": name, "value": value, "type": kind} for name, value, kind in (
                ("action", "={{ $json.body.action }}", "string"), ("number", "={{ $json.body.issue.number }}", "number"),
                ("title", "={{ $json.body.issue.title }}", "string"),
                ("labels", "={{ $json.body.issue.labels.map(l => l.name.toLowerCase()) }}", "array"),
                ("repo", "={{ $json.body.repository.full_name }}", "string"))]}, "options": {}}, rng),
        _node("Is opened?", "n8n-nodes-base.if", 2.2, [440, 300], {"conditions": {
            "options": {"caseSensitive": True, "leftValue": "", "typeValidation": "strict", "version": 2},
            "conditions": [_condition("={{ $json.action }}", {"type": "string", "operation": "equals"}, "opened", rng)],
            "combinator": "and"}, "options": {}}, rng),
        _node("Route", "n8n-nodes-base.switch", 3.2, [660, 300], {"rules": {"values": route_rules}, "options": {}}, rng),
        *(_fields(TAG_NODES[route], [880, 60 + 160 * i], {"route": route, "label": ROUTE_LABEL[route],
                                                          **({"comment": COMMENTS[route]} if route in COMMENTS else {})}, rng)
          for i, route in enumerate(ROUTE_LABEL)),
        _node("Priority", "n8n-nodes-base.switch", 3.2, [1100, 300], {"rules": {"values": priority_rules}, "options": {}}, rng),
        *(_fields(PRIORITY_NODES[level], [1320, 220 + 160 * i], {"priority": level}, rng) for i, level in enumerate(PRIORITY_NODES)),
        _github_post("Add labels", [1540, 300], "labels",
                     "={{ JSON.stringify({ labels: [$json.label, 'priority:' + $json.priority] }) }}", rng),
        _github_post("Post comment", [1540, 620], "comments", "={{ JSON.stringify({ body: $json.comment }) }}", rng),
    ]
    connections = {
        "GitHub Webhook": {"main": [_to("Issue fields")]}, "Issue fields": {"main": [_to("Is opened?")]},
        "Is opened?": {"main": [_to("Route"), []]}, "Route": {"main": [_to(TAG_NODES[route]) for route in ROUTE_LABEL]},
        **{TAG_NODES[route]: {"main": [_to("Priority", *(["Post comment"] if route in COMMENTS else []))]} for route in ROUTE_LABEL},
        "Priority": {"main": [_to(PRIORITY_NODES[level]) for level in PRIORITY_NODES]},
        **{PRIORITY_NODES[level]: {"main": [_to("Add labels")]} for level in PRIORITY_NODES},
    }
    return {"name": TRIAGE_NAME, "nodes": nodes, "pinData": {}, "connections": connections, "active": True,
            "settings": {"executionOrder": "v1", "saveManualExecutions": True, "callerPolicy": "workflowsFromSameOwner"},
            "versionId": _uuid(rng), "meta": {"templateCredsSetupCompleted": True, "instanceId": _token(rng, 64).lower()},
            "id": TRIAGE_WORKFLOW_ID, "tags": [{"name": "github", "id": "2"}]}


def _task(start: datetime, index: int, took_ms: int, previous: str | None, main: list[list[dict[str, Any]]] | None,
          **extra: Any) -> dict[str, Any]:
    task: dict[str, Any] = {"startTime": _ms(start), "executionIndex": index, "executionTime": took_ms,
                            "source": [{"previousNode": previous}] if previous else [], "executionStatus": "success"}
    if main is not None:
        task["data"] = {"main": main}
    task.update(extra)
    return task


def _items(*values: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"json": value, "pairedItem": {"item": 0}} for value in values]


def _label(repo: str, name: str) -> dict[str, Any]:
    """A label as GitHub's ``POST …/labels`` lists it."""
    color, description = LABELS[name]
    return {"id": LABEL_IDS[name], "node_id": f"LA_kwDOAB{LABEL_IDS[name]}",
            "url": f"https://api.github.com/repos/{repo}/labels/{quote(name)}", "name": name, "color": color,
            "default": name in ("bug", "enhancement", "question"), "description": description}


def _triage_opened(rng: random.Random, timing: random.Random, step: Any, fields: dict[str, Any],
                   issue: dict[str, Any]) -> tuple[str, dict[str, Any] | None, str]:
    """Run the opened-issue branch: Route, its tag, Priority, its level, Add labels, Post comment.

    ``rng`` draws what the workflow's first version drew (so the deliveries stay those of the
    earlier set); ``timing`` the durations of the Edit Fields nodes added since.
    """
    route, priority = _legacy_route(issue), _priority(issue)
    tag, level = TAG_NODES[route], PRIORITY_NODES[priority]
    tagged = {**fields, "route": route, "label": ROUTE_LABEL[route], **({"comment": COMMENTS[route]} if route in COMMENTS else {})}
    step("Route", "Is opened?", [_items(fields) if key == route else [] for key in ROUTE_LABEL])
    step(tag, "Route", [_items(tagged)], rng=timing)
    step("Priority", tag, [_items(tagged) if key == priority else [] for key in PRIORITY_NODES])
    prioritised = {**tagged, "priority": priority}
    step(level, "Priority", [_items(prioritised)], rng=timing)
    if rng.random() < 0.02:
        error = {"message": "Bad gateway - the service failed to handle your request", "httpCode": "502",
                 "description": "502 Bad Gateway", "name": "NodeApiError",
                 "node": {"name": "Add labels", "type": "n8n-nodes-base.httpRequest"}}
        step("Add labels", level, None, took=rng.randrange(300, 900), executionStatus="error", error=error)
        return "error", error, "Add labels"
    names = [label["name"] for label in issue["labels"]]
    names += [n for n in (ROUTE_LABEL[route], f"priority:{priority}") if n.lower() not in {m.lower() for m in names}]
    step("Add labels", level, [_items(*(_label(fields["repo"], n) for n in names))])
    if route not in COMMENTS:
        return "success", None, "Add labels"
    comment = 1_900_000_000 + rng.randrange(10**8)
    base = f"https://github.com/{fields['repo']}/issues/{fields['number']}"
    step("Post comment", tag, [_items({"id": comment, "html_url": f"{base}#issuecomment-{comment}",
                                       "body": COMMENTS[route], "author_association": "NONE"})])
    return "success", None, "Post comment"


def _triage_execution(rng: random.Random, ident: int, received: datetime, headers: dict[str, str],
                      body: dict[str, Any]) -> dict[str, Any]:
    """One n8n execution of the triage workflow, as ``GET /executions?includeData=true`` lists it."""
    webhook = {"headers": headers, "params": {}, "query": {}, "body": body,
               "webhookUrl": "https://n8n.acme.test/webhook/github-triage", "executionMode": "production"}
    issue = body["issue"]
    fields = {"action": body["action"], "number": issue["number"], "title": issue["title"],
              "labels": [str(label["name"]).lower() for label in issue["labels"]], "repo": body["repository"]["full_name"]}
    at = received
    run_data: dict[str, Any] = {}
    status, error, last = "success", None, "Is opened?"

    def step(name: str, previous: str | None, main: list[list[dict[str, Any]]] | None, took: int | None = None,
             rng: random.Random = rng, **extra: Any) -> None:
        nonlocal at
        if "error" in extra:
            extra["error"] = {**extra["error"], "timestamp": _ms(at)}
        took = rng.randrange(1, 40) if took is None else took
        run_data[name] = [_task(at, len(run_data), took, previous, main, **extra)]
        at += timedelta(milliseconds=took + (rng.randrange(1, 5) if main is not None else 0))

    step("GitHub Webhook", None, [_items(webhook)])
    step("Issue fields", "GitHub Webhook", [_items(fields)])
    opened = body["action"] == "opened"
    step("Is opened?", "Issue fields", [_items(fields), []] if opened else [[], _items(fields)])
    if opened:
        status, error, last = _triage_opened(rng, random.Random(f"{ident}:nodes"), step, fields, issue)
    result: dict[str, Any] = {"runData": run_data, "lastNodeExecuted": last}
    if error is not None:
        result["error"] = error
    return {"id": ident, "finished": status == "success", "mode": "webhook", "retryOf": None, "retrySuccessId": None,
            "status": status, "createdAt": _iso(received), "startedAt": _iso(received), "stoppedAt": _iso(at),
            "deletedAt": None, "workflowId": TRIAGE_WORKFLOW_ID, "waitTill": None, "customData": {},
            "data": {"startData": {}, "resultData": result, "executionData": {"contextData": {}, "nodeExecutionStack": [],
                                                                           "waitingExecution": {}, "waitingExecutionSource": {}}}}


def github_triage_export(rng: random.Random, count: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return (executions page, workflow) of ``count`` GitHub issue deliveries."""
    workflow = triage_workflow(random.Random(f"{rng.random()}:workflow"))
    deliveries = sorted((_at(N8N_FROM, WINDOW.end, rng), index) for index in range(count))
    executions = []
    for number, (received, index) in enumerate(deliveries):
        body = _issue_event(rng, 100 + number)
        raw = json.dumps(body, separators=(",", ":")).encode()
        headers = {"host": "n8n.acme.test", "accept": "*/*", "content-type": "application/json",
                   "user-agent": "GitHub-Hookshot/a1b2c3d", "x-github-delivery": _uuid(rng), "x-github-event": "issues",
                   "x-github-hook-id": "481516234", "x-github-hook-installation-target-id": str(body["repository"]["id"]),
                   "x-github-hook-installation-target-type": "repository",
                   "x-hub-signature-256": github_signature(b"demo-webhook-secret", raw)}
        executions.append(_triage_execution(rng, 48_000 + number, received, headers, body))
    executions.reverse()  # the API lists the newest first
    return {"data": executions, "nextCursor": None}, workflow


# --- bug-digest: n8n executions of an hourly Schedule Trigger --------------------------------------

DIGEST_WORKFLOW_ID = "12"
DIGEST_NAME = "Open bugs digest"
DIGEST_CRON = "0 * * * *"
DIGEST_TIMEZONE = "Europe/Berlin"
SEARCH_URL = ("https://api.github.com/search/issues?q=repo%3Aocto-org%2Fhello-world+is%3Aissue+is%3Aopen+label%3Abug"
              "&sort=created&order=desc&per_page=5")


def digest_workflow(rng: random.Random) -> dict[str, Any]:
    """The digest workflow: Schedule Trigger (cron, the workflow's timezone) → IF → HTTP → IF → HTTP."""
    strict = {"caseSensitive": True, "leftValue": "", "typeValidation": "strict", "version": 2}
    office = [_condition('={{ $json["Day of week"] }}', {"type": "string", "operation": "notRegex"}, "^(Saturday|Sunday)$", rng),
              _condition("={{ Number($json.Hour) }}", {"type": "number", "operation": "gte"}, 8, rng),
              _condition("={{ Number($json.Hour) }}", {"type": "number", "operation": "lt"}, 18, rng)]
    nodes = [
        _node("Every hour", "n8n-nodes-base.scheduleTrigger", 1.2, [0, 300],
              {"rule": {"interval": [{"field": "cronExpression", "expression": DIGEST_CRON}]}}, rng),
        _node("Office hours?", "n8n-nodes-base.if", 2.2, [220, 300],
              {"conditions": {"options": strict, "conditions": office, "combinator": "and"}, "options": {}}, rng),
        _node("Search open bugs", "n8n-nodes-base.httpRequest", 4.2, [440, 200],
              {"method": "GET", "url": SEARCH_URL, "authentication": "predefinedCredentialType",
               "nodeCredentialType": "githubApi", "options": {}}, rng,
              credentials={"githubApi": {"id": "3", "name": "GitHub account"}}),
        _node("Any bugs?", "n8n-nodes-base.if", 2.2, [660, 200], {"conditions": {"options": strict, "conditions": [
            _condition("={{ $json.total_count }}", {"type": "number", "operation": "gt"}, 0, rng)], "combinator": "and"},
            "options": {}}, rng),
        _node("Post to Slack", "n8n-nodes-base.httpRequest", 4.2, [880, 100],
              {"method": "POST", "url": "https://slack.com/api/chat.postMessage", "authentication": "predefinedCredentialType",
               "nodeCredentialType": "slackApi", "sendBody": True, "specifyBody": "json",
               "jsonBody": "={{ JSON.stringify({ channel: '#triage', text: $json.total_count + ' open bugs in "
                           "octo-org/hello-world (' + $('Every hour').item.json['Readable date'] + ')\\n' + "
                           "$json.items.map(i => '• #' + i.number + ' ' + i.title + ' <' + i.html_url + '>').join('\\n') }) }}",
               "options": {}}, rng, credentials={"slackApi": {"id": "5", "name": "Slack bot"}}),
    ]
    connections = {
        "Every hour": {"main": [[{"node": "Office hours?", "type": "main", "index": 0}]]},
        "Office hours?": {"main": [[{"node": "Search open bugs", "type": "main", "index": 0}], []]},
        "Search open bugs": {"main": [[{"node": "Any bugs?", "type": "main", "index": 0}]]},
        "Any bugs?": {"main": [[{"node": "Post to Slack", "type": "main", "index": 0}], []]},
    }
    return {"name": DIGEST_NAME, "nodes": nodes, "pinData": {}, "connections": connections, "active": True,
            "settings": {"executionOrder": "v1", "timezone": DIGEST_TIMEZONE, "saveDataSuccessExecution": "all"},
            "versionId": _uuid(rng), "meta": {"instanceId": _token(rng, 64).lower()}, "id": DIGEST_WORKFLOW_ID,
            "tags": [{"name": "github", "id": "2"}]}


def _ordinal(day: int) -> str:
    return f"{day}{'th' if 10 <= day % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(day % 10, 'th')}"


def schedule_item(fired: datetime) -> dict[str, Any]:
    """What n8n's Schedule Trigger emits when it fires: the moment in the workflow's timezone, and its parts."""
    local = fired.astimezone(ZoneInfo(DIGEST_TIMEZONE))
    offset = local.strftime("%z")
    offset = f"{offset[:3]}:{offset[3:]}"
    clock = f"{local.hour % 12 or 12}:{local:%M:%S} {'am' if local.hour < 12 else 'pm'}"
    return {"timestamp": f"{local:%Y-%m-%dT%H:%M:%S}.{local.microsecond // 1000:03d}{offset}",
            "Readable date": f"{local:%B} {_ordinal(local.day)} {local.year}, {clock}", "Readable time": clock,
            "Day of week": f"{local:%A}", "Year": f"{local.year}", "Month": f"{local:%B}", "Day of month": f"{local:%d}",
            "Hour": f"{local:%H}", "Minute": f"{local:%M}", "Second": f"{local:%S}",
            "Timezone": f"{DIGEST_TIMEZONE} (UTC{offset})"}


def _digest_execution(rng: random.Random, ident: int, tick: datetime) -> dict[str, Any]:
    fired = tick + timedelta(milliseconds=rng.randrange(1, 25))
    at = fired
    run_data: dict[str, Any] = {}

    def step(name: str, previous: str | None, main: list[list[dict[str, Any]]]) -> None:
        nonlocal at
        took = rng.randrange(1, 30) if previous != "Office hours?" else rng.randrange(150, 700)
        run_data[name] = [_task(at, len(run_data), took, previous, main)]
        at += timedelta(milliseconds=took + rng.randrange(1, 5))

    item = schedule_item(fired)
    step("Every hour", None, [_items(item)])
    local = tick.astimezone(BERLIN)
    office = local.weekday() < 5 and 8 <= local.hour < 18
    step("Office hours?", "Every hour", [_items(item), []] if office else [[], _items(item)])
    last = "Office hours?"
    if office:
        total = rng.choices([0, rng.randrange(1, 4), rng.randrange(4, 15)], [15, 45, 40])[0]
        items = [{"number": 100 + rng.randrange(900), "title": rng.choice([t for k, t in TITLES if k == "bug"]),
                  "html_url": "", "state": "open", "labels": [{"name": "bug"}],
                  "created_at": _iso(tick - timedelta(hours=rng.randrange(1, 400)), 0).replace(".Z", "Z")}
                 for _ in range(min(total, 5))]
        for found in items:
            found["html_url"] = f"https://github.com/octo-org/hello-world/issues/{found['number']}"
        result = {"total_count": total, "incomplete_results": False, "items": items}
        step("Search open bugs", "Office hours?", [_items(result)])
        step("Any bugs?", "Search open bugs", [_items(result), []] if total else [[], _items(result)])
        last = "Any bugs?"
        if total:
            ts = f"{int(at.timestamp())}.{rng.randrange(10**6):06d}"
            step("Post to Slack", "Any bugs?", [_items({"ok": True, "channel": "C05TRIAGE01", "ts": ts,
                                                        "message": {"type": "message", "bot_id": "B05DIGEST1", "ts": ts}})])
            last = "Post to Slack"
    return {"id": ident, "finished": True, "mode": "trigger", "retryOf": None, "retrySuccessId": None, "status": "success",
            "createdAt": _iso(fired), "startedAt": _iso(fired), "stoppedAt": _iso(at), "deletedAt": None,
            "workflowId": DIGEST_WORKFLOW_ID, "waitTill": None, "customData": {},
            "data": {"startData": {}, "resultData": {"runData": run_data, "lastNodeExecuted": last},
                     "executionData": {"contextData": {}, "nodeExecutionStack": [], "waitingExecution": {},
                                       "waitingExecutionSource": {}}}}


def bug_digest_export(rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return (executions page, workflow): one execution per hourly tick n8n still kept."""
    workflow = digest_workflow(random.Random(f"{rng.random()}:workflow"))
    ticks = int((WINDOW.end - N8N_FROM).total_seconds() // 3600) + 1
    executions = [_digest_execution(rng, 52_000 + hour * 3, N8N_FROM + timedelta(hours=hour)) for hour in range(ticks)]
    executions.reverse()
    return {"data": executions, "nextCursor": None}, workflow


# --- the tap: deliveries the platforms do not export, recorded by harness.recorder ---------------

class _PinnedUuids:
    """Stands in for the recorder's ``uuid`` module: its uuid4 ids drawn from the seed, not the OS."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def uuid4(self) -> uuid.UUID:
        return uuid.UUID(int=self.rng.getrandbits(128), version=4)


def record_with_tap(into: Path, automation: str, deliveries: list[tuple[datetime, dict[str, str], bytes]],
                    rng: random.Random) -> None:
    """Post each delivery (in arrival order) through the recorder's ASGI app on a clock at its arrival."""
    clock = iter([at for at, _, _ in deliveries])
    config = RecorderConfig(into, automation, policy_from_settings(REDACTION, DEMO_SALT))
    with mock.patch.object(recorder, "uuid", _PinnedUuids(rng)):
        app = build_app(config, clock=lambda: next(clock))

        async def send() -> None:
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://tap.acme.test:8787") as client:
                for _, headers, raw in deliveries:
                    response = await client.post(f"/{automation}", content=raw, headers=headers)
                    if response.status_code != 202:
                        raise RuntimeError(f"the tap refused a delivery: {response.status_code} {response.text}")

        asyncio.run(send())


# --- payment-dunning: Zapier zap runs + the Zapfile, Stripe events recorded by the tap --------------

ZAP_ID = 245001
ZAP_TITLE = "Stripe failed payment → dunning email"
STAGE_PATHS = {"reminder": "Reminder (1st attempt)", "warning": "Warning (2nd attempt)", "final": "Final notice (3+ attempts)"}


def _invoice_event(rng: random.Random, received: datetime) -> dict[str, Any]:
    first, last = rng.choice(FIRST), rng.choice(LAST)
    customer = f"cus_{_token(rng, 14)}"
    attempts = rng.choices([1, 2, 3, 4], [50, 28, 15, 7])[0]
    amount = rng.choice(AMOUNTS)
    plan = rng.choices([p for p, _ in PLANS], [w for _, w in PLANS])[0]
    created = int(received.timestamp())
    price = {"id": f"price_{_token(rng, 14)}", "object": "price", "currency": "usd", "unit_amount": amount,
             "lookup_key": f"acme_{plan}_monthly", "metadata": {"plan": plan}, "recurring": {"interval": "month"}}
    invoice = {
        "id": f"in_{_token(rng, 24)}", "object": "invoice", "account_country": "US", "account_name": "Acme Inc.",
        "amount_due": amount, "amount_paid": 0, "amount_remaining": amount, "attempt_count": attempts, "attempted": True,
        "billing_reason": "subscription_cycle", "collection_method": "charge_automatically",
        "created": created - 3600, "currency": "usd", "customer": customer,
        "customer_email": f"{first.lower()}.{last.lower()}@{rng.choice(COMPANIES)[1]}", "customer_name": f"{first} {last}",
        "hosted_invoice_url": f"https://invoice.stripe.com/i/acct_1Nv0/test_{_token(rng, 20)}",
        "livemode": True, "next_payment_attempt": created + 3 * 86400 if attempts < 4 else None,
        "number": f"ACME-{rng.randrange(1000, 9999)}-{attempts:04d}", "paid": False, "status": "open",
        "subscription": f"sub_{_token(rng, 14)}",
        "lines": {"object": "list", "has_more": False, "total_count": 1, "url": "/v1/invoices/lines",
                  "data": [{"id": f"il_{_token(rng, 14)}", "object": "line_item", "amount": amount, "currency": "usd",
                            "description": f"1 × Acme {plan.title()} (at ${amount / 100:.2f} / month)", "quantity": 1,
                            "price": price}]},
        "total": amount, "subtotal": amount,
    }
    return {"id": f"evt_{_token(rng, 24)}", "object": "event", "api_version": "2024-04-10", "created": created,
            "data": {"object": invoice}, "livemode": True, "pending_webhooks": 2,
            "request": {"id": None, "idempotency_key": None}, "type": "invoice.payment_failed"}


def _stage(attempts: int) -> str:
    return "reminder" if attempts <= 1 else "warning" if attempts == 2 else "final"


def _fee_text(amount_due: int, stage: str) -> str:
    """What the zap's Formatter did: cents → units, +5% on final notices, ROUND half-up."""
    amount = Decimal(amount_due) / 100 * (Decimal("1.05") if stage == "final" else 1)
    return str(amount.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def _zap_node(ident: int, parent: int | None, type_of: str, api: str, action: str, title: str | None,
              params: dict[str, Any]) -> dict[str, Any]:
    return {"id": ident, "account_id": 3_100_412, "customuser_id": 4_200_733, "paused": False, "type_of": type_of,
            "params": params, "meta": {"$editor": {"has_automatic_issues": False}}, "folders": None, "parent_id": parent,
            "root_id": None if parent is None else 1001, "action": action, "selected_api": api, "title": title,
            "authentication_id": 58_210_001 if api.startswith(("Stripe", "Postmark")) else None,
            "created_at": "2024-03-04T10:12:00+00:00", "last_changed": "2024-05-20T16:40:00+00:00"}


def zapfile() -> dict[str, Any]:
    """The account export's Zapfile.json (``gdpr_v1``): the zap's nodes, chained by ``parent_id``."""
    stripe, postmark, formatter = "StripeCLIAPI@3.2.1", "PostmarkCLIAPI@2.1.0", "FormatterCLIAPI@1.2.0"
    amount = "{{1001__data__object__amount_due}}"

    def send(ident: int, parent: int, title: str, stage: str, value: str) -> dict[str, Any]:
        return _zap_node(ident, parent, "write", postmark, "send_email_with_template", title, {
            "from": "billing@acme.test", "to": "{{1001__data__object__customer_email}}", "template_alias": f"dunning-{stage}",
            "template_model": {"customer_name": "{{1001__data__object__customer_name}}", "amount": value, "currency": "USD",
                               "invoice_url": "{{1001__data__object__hosted_invoice_url}}"}})

    def path(ident: int, title: str, attempts: str, match: str) -> dict[str, Any]:
        return _zap_node(ident, 1004, "filter", "BranchingAPI", "filter", title, {"filter_criteria": [
            {"key": "{{1001__data__object__attempt_count}}", "match": match, "value": attempts, "group": f"g{ident}",
             "action": "continue"}]})

    nodes = [
        _zap_node(1001, None, "read", stripe, "event", "New Event in Stripe", {"event_types": ["invoice.payment_failed"]}),
        _zap_node(1002, 1001, "filter", "FilterAPI", "filter", "Only paid plans", {"filter_criteria": [
            {"key": "{{1001__data__object__lines__data[]price__metadata__plan}}", "match": "iexact_not", "value": "free",
             "group": "g1", "action": "continue"}]}),
        _zap_node(1003, 1002, "write", formatter, "number", "Format amount",
                  {"transform": "number.math", "operation": "div", "inputs": [amount, "100"]}),
        _zap_node(1004, 1003, "write", "BranchingAPI", "branch", "Stage", {}),
        path(1005, STAGE_PATHS["reminder"], "1", "number_lte"),
        path(1006, STAGE_PATHS["warning"], "2", "exact"),
        path(1007, STAGE_PATHS["final"], "3", "number_gte"),
        send(1008, 1005, "Send reminder email", "reminder", "{{1003__output}}"),
        send(1009, 1006, "Send warning email", "warning", "{{1003__output}}"),
        _zap_node(1010, 1007, "write", formatter, "number", "Add late fee",
                  {"transform": "number.spreadsheet_formula", "formula": "ROUND({{1003__output}}*1.05, 2)"}),
        send(1011, 1010, "Send final notice", "final", "{{1010__output}}"),
    ]
    return {"metadata": {"version": "gdpr_v1"}, "zaps": [
        {"id": ZAP_ID, "title": ZAP_TITLE, "status": "on", "nodes": {str(n["id"]): n for n in nodes}}]}


# The Zapfile's steps in editor order (depth first, children by id), and which of them ran per stage.
ZAP_ORDER = (1001, 1002, 1003, 1004, 1005, 1008, 1006, 1009, 1007, 1010, 1011)
STAGE_STEPS = {"reminder": (1005, 1008), "warning": (1006, 1009), "final": (1007, 1010, 1011)}
PATH_FILTERS = (1005, 1006, 1007)


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Zapier's flattened view of a trigger's data (``data__object__id``); lists are kept whole."""
    if not isinstance(value, dict):
        return {prefix: value}
    out: dict[str, Any] = {}
    for key, inner in value.items():
        name = f"{prefix}__{key}" if prefix else key
        out.update(_flatten(inner, name) if isinstance(inner, dict) else {name: inner})
    return out


def _zap_run(rng: random.Random, event: dict[str, Any], received: datetime) -> dict[str, Any]:
    invoice = event["data"]["object"]
    plan = invoice["lines"]["data"][0]["price"]["metadata"]["plan"]
    stage = _stage(invoice["attempt_count"])
    start = received + timedelta(milliseconds=rng.randrange(300, 2500))
    at = start
    states = {}
    for ident in ZAP_ORDER:
        if ident in (1001, 1002):
            state = "success" if ident == 1001 or plan != "free" else "filtered"
        elif plan == "free":
            state = "skipped"
        elif ident in (1003, 1004):
            state = "success"
        elif ident in PATH_FILTERS:
            state = "success" if ident == STAGE_STEPS[stage][0] else "filtered"
        else:
            state = "success" if ident in STAGE_STEPS[stage] else "skipped"
        states[ident] = (state, at)
        at += timedelta(milliseconds=rng.randrange(50, 900) if state == "success" else 0)
    data_in: Any = _flatten(event) if rng.random() < 0.2 else ""
    return {"id": _uuid(rng), "zap_id": ZAP_ID, "start_time": _iso(start, 6), "end_time": _iso(at, 6),
            "status": "filtered" if plan == "free" else "success", "zap_title": ZAP_TITLE,
            "steps": [{"status": states[i][0], "start_time": _iso(states[i][1], 6)} for i in ZAP_ORDER],
            "data_in": data_in, "data_out": ""}


def payment_dunning_exports(rng: random.Random, count: int) -> tuple[list[tuple[datetime, dict[str, str], bytes]], dict[str, Any]]:
    """Return the Stripe deliveries (for the tap) and the zap-runs page of ``count`` failed payments."""
    deliveries, runs = [], []
    for received in sorted(_at(WINDOW.start, WINDOW.end, rng) for _ in range(count)):
        event = _invoice_event(rng, received)
        raw = json.dumps(event, separators=(",", ":")).encode()
        stamp = int(received.timestamp())
        headers = {"content-type": "application/json; charset=utf-8", "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
                   "stripe-signature": f"t={stamp},v1={github_signature(b'whsec_demo', raw)[7:]}"}
        deliveries.append((received, headers, raw))
        runs.append(_zap_run(rng, event, received))
    runs.reverse()  # newest first, as the API pages them
    return deliveries, {"links": {"next": None, "prev": None}, "meta": {"count": len(runs), "limit": len(runs), "offset": 0},
                        "data": runs}


# --- lead-router: Make scenario logs + blueprint, form posts recorded by the tap --------------------

SCENARIO_ID = 112
SCENARIO_NAME = "Lead routing"


def blueprint() -> dict[str, Any]:
    """``GET /scenarios/112/blueprint``: the webhook, the size router with its route filters, HubSpot."""
    def contact(ident: int, name: str, tier: str, condition: list[dict[str, Any]]) -> dict[str, Any]:
        return {"id": ident, "module": "hubspotcrm:createContact", "version": 2, "parameters": {"__IMTCONN__": 2207},
                "filter": {"name": name, "conditions": [condition]},
                "mapper": {"email": "{{lower(trim(1.email))}}", "firstname": "{{1.first_name}}", "lastname": "{{1.last_name}}",
                           "company": "{{1.company}}", "lead_tier": tier, "hs_lead_status": "NEW"},
                "metadata": {"designer": {"x": 600, "y": ident * 150, "name": f"Create {tier.upper() if tier == 'smb' else tier} contact"}}}

    company_mail = {"a": "{{last(split(lower(trim(1.email)); \"@\"))}}", "b": ",".join(FREE_DOMAINS), "o": "text:notcontain"}
    flow = [
        {"id": 1, "module": "gateway:CustomWebHook", "version": 1, "parameters": {"hook": 48113, "maxResults": 1},
         "mapper": {}, "metadata": {"designer": {"x": 0, "y": 0, "name": "Web form"}}},
        {"id": 2, "module": "builtin:BasicRouter", "version": 1, "mapper": None,
         "metadata": {"designer": {"x": 300, "y": 0, "name": "Size router"}}, "routes": [
             {"flow": [contact(3, "Enterprise (>1000)", "enterprise",
                               [company_mail, {"a": "{{1.employees}}", "b": "1000", "o": "number:greater"}])]},
             {"flow": [contact(4, "SMB", "smb",
                               [company_mail, {"a": "{{1.employees}}", "b": "1000", "o": "number:lessorequal"}])]}]},
    ]
    return {"code": "OK", "response": {"blueprint": {"name": SCENARIO_NAME, "flow": flow, "metadata": {
        "instant": True, "version": 1, "scenario": {"roundtrips": 1, "maxErrors": 3, "autoCommit": True,
                                                    "sequential": False, "confidential": False, "dlq": False}}},
        "scheduling": {"type": "immediately"}, "idSequence": 5, "created": "2024-02-12T09:30:00.000Z"}}


def _lead(rng: random.Random, received: datetime) -> dict[str, Any]:
    first, last = rng.choice(FIRST), rng.choice(LAST)
    company, domain, employees = rng.choice(COMPANIES)
    if rng.random() < 0.18:
        company, domain, employees = "", rng.choice(FREE_DOMAINS), None
    email = f"{first.lower()}.{last.lower()}@{domain}"
    return {"form_id": "contact-sales", "email": email if rng.random() < 0.85 else email.title(), "first_name": first,
            "last_name": last, "company": company, "employees": "" if employees is None else str(employees),
            "job_title": rng.choice(["CTO", "Head of Ops", "Engineer", "Founder", ""]),
            "phone": f"+1 555 {rng.randrange(100, 999)} {rng.randrange(1000, 9999)}", "country": rng.choice(["US", "DE", "GB", "BR", "JP"]),
            "message": rng.choice(["We need a quote for 50 seats.", "Can we get a demo next week?", "Pricing for enterprise?", ""]),
            "utm_source": rng.choice(["google", "linkedin", "newsletter", ""]), "consent": True,
            "submitted_at": received.isoformat().replace("+00:00", "Z")}


def lead_router_exports(rng: random.Random, count: int) -> tuple[list[tuple[datetime, dict[str, str], bytes]], dict[str, Any]]:
    """Return the form posts (for the tap) and the scenario's logs, with the details of failed runs."""
    deliveries, logs, details = [], [], {}
    for received in sorted(_at(WINDOW.start, WINDOW.end, rng) for _ in range(count)):
        lead = _lead(rng, received)
        headers = {"content-type": "application/json", "user-agent": "Mozilla/5.0 (form relay)",
                   "x-forwarded-for": f"203.0.113.{rng.randrange(1, 255)}"}
        deliveries.append((received, headers, json.dumps(lead, separators=(",", ":")).encode()))
        domain = lead["email"].strip().lower().rpartition("@")[2]
        junk = domain in FREE_DOMAINS
        started = received + timedelta(milliseconds=rng.randrange(400, 2500))
        execution = uuid.UUID(int=rng.getrandbits(128)).hex
        failed = not junk and rng.random() < 0.015
        tier = "enterprise" if int(lead["employees"] or 0) > 1000 else "smb"
        log = {"imtId": f"{_ms(started)}_scenario.{SCENARIO_ID}.auto.{execution}", "duration": rng.randrange(300, 2600),
               "operations": 1 if junk else 2, "centicredits": 100 if junk else 200, "transfer": rng.randrange(900, 2400),
               "organizationId": 1_830_221, "teamId": 401_118, "id": execution, "type": "auto", "authorId": None,
               "instant": True, "timestamp": _iso(started), "status": 3 if failed else 1}
        if failed:
            details[execution] = {"status": "ERROR", "outputs": {}, "error": {
                "name": "ConnectionError", "message": "[503] Service Unavailable: the HubSpot API is temporarily unavailable",
                "causeModule": {"name": f"Create {'SMB' if tier == 'smb' else tier} contact", "appName": "hubspotcrm"}}}
        logs.append(log)
    logs.reverse()  # the API lists the newest first
    return deliveries, {"scenarioLogs": logs, "pg": {"sortBy": "imtId", "sortDir": "desc", "limit": len(logs), "showLast": False},
                        "executions": details}


# --- the set: manifest, exports, tap, imports ------------------------------------------------------

def manifest_skeleton() -> Manifest:
    """The set before any import: its window, redaction and the name maps a reviewer wrote."""
    automations = {
        "github-triage": AutomationEntry(
            "github-triage", Platform.N8N, Coercion.N8N, legacy_workflows=(TRIAGE_WORKFLOW_ID, TRIAGE_NAME),
            delivery_id="header:x-github-delivery",
            steps={"GitHub Webhook": "", "Issue fields": "", "Is opened?": "", "Route": "",
                   **{tag: "" for tag in TAG_NODES.values()}, "Priority": "", **{n: "" for n in PRIORITY_NODES.values()},
                   "Add labels": "add-labels", "Post comment": "comment"},
            decisions={"Is opened?": DecisionMap("opened"), "Route": DecisionMap("route"), "Priority": DecisionMap("priority")},
            providers={"api.github.com": "github"}),
        "bug-digest": AutomationEntry(
            "bug-digest", Platform.N8N, Coercion.N8N, legacy_workflows=(DIGEST_WORKFLOW_ID, DIGEST_NAME),
            steps={"Every hour": "", "Office hours?": "", "Search open bugs": "search-bugs", "Any bugs?": "",
                   "Post to Slack": "post-digest"},
            decisions={"Office hours?": DecisionMap("office_hours"), "Any bugs?": DecisionMap("has_bugs")},
            providers={"api.github.com": "github", "slack.com": "slack"}),
        "payment-dunning": AutomationEntry(
            "payment-dunning", Platform.ZAPIER, Coercion.ZAPIER, legacy_workflows=(str(ZAP_ID), ZAP_TITLE), delivery_id="body:id",
            steps={"New Event in Stripe": "", "Only paid plans": "", "Format amount": "", "Stage": "",
                   **{title: "" for title in STAGE_PATHS.values()}, "Add late fee": "",
                   "Send reminder email": "send-email", "Send warning email": "send-email", "Send final notice": "send-email"},
            decisions={"Only paid plans": DecisionMap("paid_plan", {"passed": "true", "stopped": "false"}),
                       "Stage": DecisionMap("stage", {title: stage for stage, title in STAGE_PATHS.items()})},
            providers={"Postmark": "postmark"}),
        "lead-router": AutomationEntry(
            "lead-router", Platform.MAKE, Coercion.MAKE, legacy_workflows=(str(SCENARIO_ID), SCENARIO_NAME),
            steps={"Web form": "", "Size router": "", "Create enterprise contact": "create-contact",
                   "Create SMB contact": "create-contact"},
            decisions={"Size router": DecisionMap("route", {"Enterprise (>1000)": "enterprise", "SMB": "smb"})},
            providers={"hubspotcrm": "hubspot"}),
    }
    return Manifest(name="2024-06", description=(
        "Demo set: June 2024 traffic of four automations migrated from n8n, Zapier and Make, imported from synthetic "
        "exports in each platform's format (recordings/generate.py)."), window=WINDOW, automations=automations,
        redaction=REDACTION)


@contextmanager
def _inside(directory: Path) -> Iterator[None]:
    """Run the imports from the set's directory, so the manifest names export files relative to it."""
    before = Path.cwd()
    os.chdir(directory)
    try:
        yield
    finally:
        os.chdir(before)


def _import(staging: Path, platform: Platform, automation: str, export: str, definition: str,
            window: timedelta = timedelta(minutes=5), **limits: Any) -> None:
    request = ImportRequest(platform, Path(export), staging, automation, definition=Path(definition), salt=DEMO_SALT,
                            pair_window=window, limits=limits)
    summary = import_export(request, clock=lambda: EXPORTED)
    if VERBOSE:
        print(f"cutover import {platform} {export} --definition {definition} --automation {automation}")
        print("\n".join(f"  {line}" for line in summary.lines()))


def generate(out: Path, triggers: int, seed: int) -> dict[str, int]:
    """Write the whole set to ``out`` (replacing it only once every file is written)."""
    out = out.resolve()
    staging = out.with_name(f".{out.name}.generating")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    counts = {name: int(triggers * share) for name, share in SHARES.items()}
    counts["github-triage"] += triggers - sum(counts.values())
    rng = {name: random.Random(f"{seed}:{name}") for name in (*SHARES, "bug-digest")}
    write_manifest(staging / "manifest.toml", manifest_skeleton())

    executions, workflow = github_triage_export(rng["github-triage"], counts["github-triage"])
    _dump(staging / EXPORTS / "n8n-github-triage-executions-2024-07-01.json", executions)
    _dump_pretty(staging / DEFINITIONS / "github-triage.workflow.json", workflow)
    executions, workflow = bug_digest_export(rng["bug-digest"])
    counts["bug-digest"] = len(executions["data"])
    _dump(staging / EXPORTS / "n8n-bug-digest-executions-2024-07-01.json", executions)
    _dump_pretty(staging / DEFINITIONS / "bug-digest.workflow.json", workflow)

    stripe, runs = payment_dunning_exports(rng["payment-dunning"], counts["payment-dunning"])
    record_with_tap(staging, "payment-dunning", stripe, rng["payment-dunning"])
    _dump(staging / EXPORTS / f"zapier-zap-{ZAP_ID}-runs.json", runs)
    _dump_pretty(staging / DEFINITIONS / "Zapfile.json", zapfile())

    forms, logs = lead_router_exports(rng["lead-router"], counts["lead-router"])
    record_with_tap(staging, "lead-router", forms, rng["lead-router"])
    _dump(staging / EXPORTS / f"make-scenario-{SCENARIO_ID}-logs.json", logs)
    _dump_pretty(staging / DEFINITIONS / f"make-scenario-{SCENARIO_ID}.blueprint.json", blueprint())

    with _inside(staging):
        _import(staging, Platform.N8N, "github-triage", f"{EXPORTS}/n8n-github-triage-executions-2024-07-01.json",
                f"{DEFINITIONS}/github-triage.workflow.json",
                note="exported 2024-07-01: n8n had pruned executions before 2024-06-17", saves_successful_runs=True)
        _import(staging, Platform.N8N, "bug-digest", f"{EXPORTS}/n8n-bug-digest-executions-2024-07-01.json",
                f"{DEFINITIONS}/bug-digest.workflow.json",
                note=f"exported 2024-07-01: ticks of {DIGEST_CRON!r} ({DIGEST_TIMEZONE}) since 2024-06-17", saves_successful_runs=True)
        _import(staging, Platform.ZAPIER, "payment-dunning", f"{EXPORTS}/zapier-zap-{ZAP_ID}-runs.json",
                f"{DEFINITIONS}/Zapfile.json", window=timedelta(seconds=30), saves_successful_runs=True, saves_failed_runs=True,
                note=f"{DEFAULT_LIMITS[Platform.ZAPIER]['note']}; Stripe events recorded by the tap, zap runs paired by "
                     "event id where data_in shows it, else by time (30s)")
        _import(staging, Platform.MAKE, "lead-router", f"{EXPORTS}/make-scenario-{SCENARIO_ID}-logs.json",
                f"{DEFINITIONS}/make-scenario-{SCENARIO_ID}.blueprint.json", window=timedelta(seconds=30),
                note=f"{DEFAULT_LIMITS[Platform.MAKE]['note']}; form posts recorded by the tap, Make logs (statuses "
                     "only) paired by time (30s)")
    reviewed = out / "accepted.toml"  # the reviewed accepted differences are not generated: keep them
    if reviewed.is_file():
        shutil.copy2(reviewed, staging / "accepted.toml")
    shutil.rmtree(out, ignore_errors=True)
    staging.rename(out)
    return counts


def main() -> None:
    """Parse the command line and generate the set."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "2024-06")
    parser.add_argument("--triggers", type=int, default=2400, help="total webhook triggers across github-triage, "
                        "payment-dunning and lead-router (bug-digest's ticks come from its schedule)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quiet", action="store_true", help="do not print the import summaries")
    args = parser.parse_args()
    global VERBOSE
    VERBOSE = not args.quiet
    counts = generate(args.out, args.triggers, args.seed)
    print(f"wrote {sum(counts.values())} triggers to {args.out}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))


if __name__ == "__main__":
    main()
