"""Generate the demo recording set ``recordings/2024-06`` deterministically.

    python recordings/generate.py --out recordings/2024-06 --triggers 2400 --seed 1

Three automations migrated from three platforms, with realistic bodies and the quirks real
migrations meet:

* ``github-triage`` (n8n): GitHub ``issues`` deliveries imported from n8n executions, which n8n
  keeps for 14 days. n8n types loosely (IF outputs become ``"true"``/``"false"`` strings) and its
  Switch matched title keywords case-sensitively, so "Crash on save" went to "other" where the
  migrated code says "bug": a real disagreement cluster. A few runs failed on a GitHub 502.
* ``payment-dunning`` (Zapier): Stripe ``invoice.payment_failed`` events from zap history. Final
  notices add a 5% fee rounded half-up (Zapier's Formatter); free-plan customers are filtered.
* ``lead-router`` (Make): web-form leads recorded live by ``cutover record``, paired by time with
  Make's scenario logs; Clearbit enrichment is served to the new code from the legacy outputs.

The same seed always gives the same bytes. ``--triggers 100000`` scales the set for benchmarks.
"""

from __future__ import annotations

import argparse
import random
import shutil
import string
import uuid
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

from harness.manifest import (
    AutomationEntry, Coercion, DecisionMap, Manifest, Redaction, Source, Window, write_manifest,
)
from harness.recorder import github_signature
from harness.recording import (
    LEGACY_FILE, TRIGGERS_FILE, LegacyTrace, Platform, RecordedTrigger, TraceStatus, write_traces, write_triggers,
)
from harness.redact import RedactionPolicy, parse_json_path, redact_trace, redact_trigger

# A public salt for public demo data: real sets take theirs from CUTOVER_REDACTION_SALT.
DEMO_SALT = b"cutover-demo-2024-06 (public demo salt, never reuse)"
WINDOW = Window(datetime(2024, 6, 1, tzinfo=UTC), datetime(2024, 6, 30, 23, 59, 59, tzinfo=UTC))
N8N_FROM = datetime(2024, 6, 17, tzinfo=UTC)  # n8n's 14-day retention when exported on July 1
SHARES = {"github-triage": 0.4, "payment-dunning": 0.35, "lead-router": 0.25}
REDACTION = Redaction(
    headers=("x-forwarded-for",),
    json_paths=("data.object.customer_email", "data.object.customer_name", "phone"),
)

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
          "documentation": ("0075ca", "Improvements or additions to documentation")}
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


def _user(login: str, ident: int) -> dict[str, Any]:
    api = f"https://api.github.com/users/{login}"
    return {"login": login, "id": ident, "node_id": f"MDQ6VXNlcj{ident}", "avatar_url": f"https://avatars.githubusercontent.com/u/{ident}?v=4",
            "url": api, "html_url": f"https://github.com/{login}", "type": "User", "site_admin": False}


def _repository(owner: str, name: str, ident: int) -> dict[str, Any]:
    api = f"https://api.github.com/repos/{owner}/{name}"
    return {"id": ident, "node_id": f"MDEwOlJlcG9zaXRvcnk{ident}", "name": name, "full_name": f"{owner}/{name}",
            "private": False, "owner": _user(owner, ident // 7), "html_url": f"https://github.com/{owner}/{name}",
            "description": None, "fork": False, "url": api, "created_at": "2019-05-15T15:19:25Z",
            "pushed_at": "2024-05-31T08:40:02Z", "language": "Python", "open_issues_count": 17, "default_branch": "main",
            "visibility": "public"}


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
    created = "2024-06-01T00:00:00Z"
    issue = {"url": api, "repository_url": f"https://api.github.com/repos/{owner}/{name}", "labels_url": f"{api}/labels{{/name}}",
             "comments_url": f"{api}/comments", "events_url": f"{api}/events", "html_url": f"https://github.com/{owner}/{name}/issues/{number}",
             "id": 2_300_000_000 + number, "node_id": f"I_kwDO{_token(rng, 10)}", "number": number, "title": title,
             "user": _user(login, 21_031_067 + USERS.index(login)),
             "labels": [{"id": 1_362_934_389 + i, "node_id": f"MDU6TGFiZWw{i}", "url": f"https://api.github.com/repos/{owner}/{name}/labels/{n}",
                         "name": n, "color": LABELS[n][0], "default": n in ("bug", "enhancement", "question"), "description": LABELS[n][1]}
                        for i, n in enumerate(names)],
             "state": "open", "locked": False, "assignee": None, "assignees": [], "milestone": None, "comments": 0,
             "created_at": created, "updated_at": created, "closed_at": None, "author_association": "NONE",
             "active_lock_reason": None, "body": rng.choice([None, "Steps to reproduce:\n1. Open the app\n2. Click save", "See title."]),
             "reactions": {"url": f"{api}/reactions", "total_count": 0, "+1": 0, "-1": 0}, "state_reason": None}
    action = rng.choices(["opened", "edited", "labeled", "closed", "reopened"], [70, 10, 10, 8, 2])[0]
    if action == "closed":
        issue["state"], issue["state_reason"] = "closed", "completed"
    return {"action": action, "issue": issue, "repository": _repository(owner, name, repo_id), "sender": issue["user"]}


def _legacy_route(issue: dict[str, Any]) -> str:
    """What n8n's Switch did: title keywords matched case-sensitively, labels as written."""
    labels = {str(label["name"]).lower() for label in issue["labels"]}
    title = issue["title"]
    if "bug" in labels or any(word in title for word in ("bug", "crash", "error", "exception")):
        return "bug"
    if labels & {"enhancement", "feature"} or any(word in title for word in ("feature", "support for", "would be nice")):
        return "feature"
    if "question" in labels or title.rstrip().endswith("?"):
        return "question"
    return "other"


def _priority(issue: dict[str, Any]) -> str:
    labels = {str(label["name"]).lower() for label in issue["labels"]}
    title = issue["title"].lower()
    urgent = labels & {"p1", "critical", "security"} or any(w in title for w in ("urgent", "crash", "security", "data loss"))
    return "high" if urgent else "normal"


def github_triage(rng: random.Random, count: int) -> Iterator[tuple[RecordedTrigger, LegacyTrace]]:
    """Yield GitHub issue deliveries (as n8n's webhook node saw them) and n8n's traces."""
    for index in range(count):
        received = _at(N8N_FROM, WINDOW.end, rng)
        body = _issue_event(rng, 100 + index)
        delivery = _uuid(rng)
        raw = repr(body).encode()
        headers = {"accept": "*/*", "content-type": "application/json", "user-agent": "GitHub-Hookshot/a1b2c3d",
                   "x-github-delivery": delivery, "x-github-event": "issues", "x-github-hook-id": "481516234",
                   "x-github-hook-installation-target-id": str(body["repository"]["id"]),
                   "x-github-hook-installation-target-type": "repository",
                   "x-hub-signature-256": github_signature(b"demo-webhook-secret", raw)}
        execution = str(48_000 + index)
        trigger = RecordedTrigger(delivery, received, headers, body, f"n8n:execution/{execution}")
        yield trigger, _triage_trace(rng, body, execution, received)


def _triage_trace(rng: random.Random, body: dict[str, Any], execution: str, received: datetime) -> LegacyTrace:
    started = received + timedelta(milliseconds=rng.randrange(20, 400))
    trace = LegacyTrace(trigger_id="", status=TraceStatus.SUCCEEDED, platform=Platform.N8N, raw_run_id=execution,
                        workflow="GitHub issue triage", started_at=started,
                        finished_at=started + timedelta(milliseconds=rng.randrange(300, 1500)))
    if body["action"] != "opened":
        return replace(trace, decisions={"opened": "false"})
    issue = body["issue"]
    route, priority = _legacy_route(issue), _priority(issue)
    base = f"/repos/{body['repository']['full_name']}/issues/{issue['number']}"
    labels = [{"bug": "bug", "feature": "enhancement", "question": "question", "other": "triage"}[route], f"priority:{priority}"]
    calls = [{"step": "add-labels", "provider": "github", "method": "POST", "url": f"{base}/labels", "body": {"labels": labels}}]
    decisions = {"opened": "true", "route": route, "priority": priority}
    if rng.random() < 0.02:
        return replace(trace, status=TraceStatus.FAILED, path=["add-labels"], decisions=decisions, calls=calls,
                       error="Add labels: The service was not able to process your request (502 Bad Gateway)",
                       failed_step="add-labels")
    outputs: dict[str, Any] = {"add-labels": [{"id": 1_362_934_389 + i, "name": n, "color": "ededed", "default": False}
                                              for i, n in enumerate(labels)]}
    path = ["add-labels"]
    if route in ("bug", "question"):
        text = {"bug": "Thanks for the report! A maintainer will try to reproduce this shortly.",
                "question": "Thanks for asking! Have a look at the discussions board while we get to this."}[route]
        calls.append({"step": "comment", "provider": "github", "method": "POST", "url": f"{base}/comments", "body": {"body": text}})
        comment_id = str(1_900_000_000 + rng.randrange(10**8))  # n8n hands ids on as strings: loose typing
        outputs["comment"] = {"id": comment_id, "html_url": f"https://github.com{base}#issuecomment-{comment_id}", "body": text}
        path.append("comment")
    return replace(trace, path=path, decisions=decisions, calls=calls, outputs=outputs)


def _invoice_event(rng: random.Random, received: datetime) -> tuple[dict[str, Any], str]:
    first, last = rng.choice(FIRST), rng.choice(LAST)
    customer = f"cus_{_token(rng, 14)}"
    attempts = rng.choices([1, 2, 3, 4], [50, 28, 15, 7])[0]
    amount = rng.choice(AMOUNTS)
    plan = rng.choices([p for p, _ in PLANS], [w for _, w in PLANS])[0]
    created = int(received.timestamp())
    invoice = {
        "id": f"in_{_token(rng, 24)}", "object": "invoice", "account_country": "US", "account_name": "Acme Inc.",
        "amount_due": amount, "amount_paid": 0, "amount_remaining": amount, "attempt_count": attempts, "attempted": True,
        "auto_advance": True, "billing_reason": "subscription_cycle", "collection_method": "charge_automatically",
        "created": created - 3600, "currency": "usd", "customer": customer,
        "customer_email": f"{first.lower()}.{last.lower()}@{rng.choice(COMPANIES)[1]}", "customer_name": f"{first} {last}",
        "hosted_invoice_url": f"https://invoice.stripe.com/i/acct_1Nv0/test_{_token(rng, 20)}",
        "livemode": True, "next_payment_attempt": created + 3 * 86400 if attempts < 4 else None,
        "number": f"ACME-{rng.randrange(1000, 9999)}-{attempts:04d}", "paid": False, "status": "open",
        "subscription": f"sub_{_token(rng, 14)}", "subscription_details": {"metadata": {}},
        "lines": {"object": "list", "has_more": False, "total_count": 1, "url": "/v1/invoices/lines",
                  "data": [{"id": f"il_{_token(rng, 14)}", "object": "line_item", "amount": amount, "currency": "usd",
                            "description": f"1 × Acme {plan.title()} (at ${amount / 100:.2f} / month)", "quantity": 1}]},
        "total": amount, "subtotal": amount,
    }
    event = {"id": f"evt_{_token(rng, 24)}", "object": "event", "api_version": "2024-04-10", "created": created,
             "data": {"object": invoice}, "livemode": True, "pending_webhooks": 1,
             "request": {"id": None, "idempotency_key": None}, "type": "invoice.payment_failed"}
    return event, plan


def _fee_text(amount_due: int, attempts: int) -> tuple[str, str]:
    """What the zap's Formatter did: cents → units, +5% on final notices, ROUND half-up."""
    stage = "reminder" if attempts <= 1 else "warning" if attempts == 2 else "final"
    amount = Decimal(amount_due) / 100 * (Decimal("1.05") if stage == "final" else 1)
    return stage, str(amount.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def payment_dunning(rng: random.Random, count: int) -> Iterator[tuple[RecordedTrigger, LegacyTrace]]:
    """Yield Stripe failed-payment events (from zap history) and the zap's traces."""
    for _ in range(count):
        received = _at(WINDOW.start, WINDOW.end, rng)
        event, plan = _invoice_event(rng, received)
        run = _uuid(rng)
        trigger = RecordedTrigger(event["id"], received, {}, event, f"zapier:zap-run/{run}")
        yield trigger, _dunning_trace(rng, event, plan, run, received)


def _dunning_trace(rng: random.Random, event: dict[str, Any], plan: str, run: str, received: datetime) -> LegacyTrace:
    invoice = event["data"]["object"]
    started = received + timedelta(seconds=rng.randrange(5, 90))
    customer = {"id": invoice["customer"], "object": "customer", "email": invoice["customer_email"],
                "name": invoice["customer_name"], "delinquent": True, "currency": "usd", "metadata": {"plan": plan}}
    fetch = {"step": "fetch-customer", "provider": "stripe", "method": "GET", "url": f"/v1/customers/{invoice['customer']}", "body": None}
    trace = LegacyTrace(trigger_id="", status=TraceStatus.FILTERED, platform=Platform.ZAPIER, path=["fetch-customer"],
                        calls=[fetch], outputs={"fetch-customer": customer}, raw_run_id=run, workflow="245001",
                        started_at=started, finished_at=started + timedelta(seconds=rng.randrange(1, 6)))
    if plan == "free":
        return trace
    stage, amount = _fee_text(invoice["amount_due"], invoice["attempt_count"])
    email = {"From": "billing@acme.test", "To": invoice["customer_email"], "TemplateAlias": f"dunning-{stage}",
             "TemplateModel": {"customer_name": invoice["customer_name"], "amount": amount, "currency": "USD",
                               "invoice_url": invoice["hosted_invoice_url"]}}
    send = {"step": "send-email", "provider": "postmark", "method": "POST", "url": "/email/withTemplate", "body": email}
    sent = {"To": invoice["customer_email"], "SubmittedAt": started.isoformat(), "MessageID": _uuid(rng), "ErrorCode": 0, "Message": "OK"}
    return replace(trace, status=TraceStatus.SUCCEEDED, path=["fetch-customer", "send-email"], decisions={"stage": stage},
                   calls=[fetch, send], outputs={"fetch-customer": customer, "send-email": sent})


def _lead(rng: random.Random, received: datetime) -> dict[str, Any]:
    first, last = rng.choice(FIRST), rng.choice(LAST)
    company, domain, _ = rng.choice(COMPANIES)
    if rng.random() < 0.18:
        company, domain = "", rng.choice(FREE_DOMAINS)
    email = f"{first.lower()}.{last.lower()}@{domain}"
    return {"form_id": "contact-sales", "email": email if rng.random() < 0.85 else email.title(), "first_name": first,
            "last_name": last, "company": company, "job_title": rng.choice(["CTO", "Head of Ops", "Engineer", "Founder", ""]),
            "phone": f"+1 555 {rng.randrange(100, 999)} {rng.randrange(1000, 9999)}", "country": rng.choice(["US", "DE", "GB", "BR", "JP"]),
            "message": rng.choice(["We need a quote for 50 seats.", "Can we get a demo next week?", "Pricing for enterprise?", ""]),
            "utm_source": rng.choice(["google", "linkedin", "newsletter", ""]), "consent": True,
            "submitted_at": received.isoformat().replace("+00:00", "Z")}


def lead_router(rng: random.Random, count: int) -> Iterator[tuple[RecordedTrigger, LegacyTrace]]:
    """Yield form posts recorded by ``cutover record`` and Make's traces, paired by time."""
    for _ in range(count):
        received = _at(WINDOW.start, WINDOW.end, rng)
        body = _lead(rng, received)
        headers = {"content-type": "application/json", "user-agent": "Mozilla/5.0 (form relay)",
                   "x-forwarded-for": f"203.0.113.{rng.randrange(1, 255)}"}
        trigger = RecordedTrigger(_uuid(rng), received, headers, body, "recorder")
        yield trigger, _lead_trace(rng, body, received)


def _lead_trace(rng: random.Random, body: dict[str, Any], received: datetime) -> LegacyTrace:
    started = received + timedelta(milliseconds=rng.randrange(800, 3000))
    trace = LegacyTrace(trigger_id="", status=TraceStatus.SUCCEEDED, platform=Platform.MAKE, raw_run_id=uuid.UUID(int=rng.getrandbits(128)).hex,
                        workflow="112", started_at=started, finished_at=started + timedelta(milliseconds=rng.randrange(900, 4000)))
    email = body["email"].strip().lower()
    domain = email.rpartition("@")[2]
    if domain in FREE_DOMAINS:
        return replace(trace, decisions={"route": "junk"})
    name, _, employees = next(c for c in COMPANIES if c[1] == domain)
    company = {"id": str(uuid.UUID(int=rng.getrandbits(128))), "name": name, "domain": domain, "legalName": f"{name} Corporation",
               "category": {"sector": "Information Technology", "industry": "Software"}, "geo": {"country": "United States", "countryCode": "US"},
               "metrics": {"employees": employees, "employeesRange": None if employees is None else f"{employees}+"}, "tags": ["B2B"]}
    tier = "enterprise" if (employees or 0) > 1000 else "smb"  # Make's filter: an empty number is not > 1000
    properties = {"email": email, "firstname": body["first_name"], "lastname": body["last_name"], "company": name,
                  "lead_tier": tier, "hs_lead_status": "NEW"}
    calls = [{"step": "enrich", "provider": "clearbit", "method": "GET", "url": f"/v2/companies/find?domain={domain}", "body": None},
             {"step": "create-contact", "provider": "hubspot", "method": "POST", "url": "/crm/v3/objects/contacts",
              "body": {"properties": properties}}]
    created = {"id": str(rng.randrange(10**10, 10**11)), "properties": properties, "archived": False}
    return replace(trace, path=["enrich", "create-contact"], decisions={"route": tier}, calls=calls,
                   outputs={"enrich": company, "create-contact": created})


def manifest(counts: dict[str, int]) -> Manifest:
    """Describe the generated set: its window, sources with their limits, and the name maps."""
    sources = (
        Source(Platform.N8N, "github-triage", ("exports/n8n-executions-2024-07-01.json",), retention_days=14,
               saves_successful_runs=True, saves_failed_runs=True, records=counts["github-triage"],
               note="exported 2024-07-01: n8n had pruned executions before 2024-06-17"),
        Source(Platform.ZAPIER, "payment-dunning", ("exports/zap-245001-runs.json",), saves_successful_runs=True,
               saves_failed_runs=True, records=counts["payment-dunning"]),
        Source(Platform.MAKE, "lead-router", ("exports/make-scenario-112-logs.json",), records=counts["lead-router"],
               note="triggers recorded live by cutover record; Make logs paired by time (5m window)"),
    )
    automations = {
        "github-triage": AutomationEntry(
            "github-triage", Platform.N8N, Coercion.N8N, legacy_workflows=("7", "GitHub issue triage"),
            delivery_id="header:x-github-delivery",
            steps={"GitHub Webhook": "", "Is opened?": "", "Route": "", "Priority": "", "Add labels": "add-labels",
                   "Post comment": "comment"},
            decisions={"Is opened?": DecisionMap("opened"), "Route": DecisionMap("route"), "Priority": DecisionMap("priority")},
            providers={"api.github.com": "github"}),
        "payment-dunning": AutomationEntry(
            "payment-dunning", Platform.ZAPIER, Coercion.ZAPIER, legacy_workflows=("245001",), delivery_id="body:id",
            steps={"New Event in Stripe": "", "Find Customer": "fetch-customer", "Only paid plans": "",
                   "Format amount": "", "Stage lookup": "", "Send Email in Postmark": "send-email"},
            decisions={"Stage lookup": DecisionMap("stage")}, providers={"Stripe": "stripe", "Postmark": "postmark"}),
        "lead-router": AutomationEntry(
            "lead-router", Platform.MAKE, Coercion.MAKE, legacy_workflows=("112", "Lead routing"),
            steps={"Web form": "", "Clearbit lookup": "enrich", "Create enterprise contact": "create-contact",
                   "Create SMB contact": "create-contact"},
            decisions={"Size router": DecisionMap("route", {"Enterprise (>1000)": "enterprise", "SMB": "smb", "Free mail": "junk"})},
            providers={"company.clearbit.com": "clearbit", "hubspotcrm": "hubspot"}),
    }
    return Manifest(name="2024-06", description="Demo set: June 2024 traffic of three automations migrated from n8n, Zapier and Make.",
                    window=WINDOW, sources=sources, automations=automations, redaction=REDACTION)


GENERATORS = {"github-triage": github_triage, "payment-dunning": payment_dunning, "lead-router": lead_router}


def write_automation(directory: Path, pairs: Iterator[tuple[RecordedTrigger, LegacyTrace]], policy: RedactionPolicy) -> int:
    """Redact, sort by arrival and write one automation's triggers and legacy traces."""
    rows = []
    for trigger, trace in pairs:
        hidden, replaced = redact_trigger(trigger, policy)
        rows.append((hidden, replace(redact_trace(trace, replaced), trigger_id=hidden.id)))
    rows.sort(key=lambda row: (row[0].received_at, row[0].id))
    write_triggers(directory / TRIGGERS_FILE, (t for t, _ in rows))
    write_traces(directory / LEGACY_FILE, (trace for _, trace in rows))
    return len(rows)


def generate(out: Path, triggers: int, seed: int) -> dict[str, int]:
    """Write the whole set to ``out`` (replacing it only once every file is written)."""
    policy = RedactionPolicy(DEMO_SALT, frozenset(REDACTION.headers), tuple(parse_json_path(p) for p in REDACTION.json_paths))
    staging = out.with_name(f".{out.name}.generating")
    shutil.rmtree(staging, ignore_errors=True)
    counts = {name: int(triggers * share) for name, share in SHARES.items()}
    counts["github-triage"] += triggers - sum(counts.values())
    for name, count in counts.items():
        rng = random.Random(f"{seed}:{name}")
        write_automation(staging / name, GENERATORS[name](rng, count), policy)
    write_manifest(staging / "manifest.toml", manifest(counts))
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
    parser.add_argument("--triggers", type=int, default=2400, help="total triggers across the three automations")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    counts = generate(args.out, args.triggers, args.seed)
    print(f"wrote {sum(counts.values())} triggers to {args.out}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))


if __name__ == "__main__":
    main()
