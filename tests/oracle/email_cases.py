"""Send Email v2 against the real n8n: both sides send to loopback SMTP servers (``tests.support.smtp_server``).

n8n's own node sends through its SMTP credential (the loopback server, no auth, no STARTTLS);
the scaffold runs the same workflow file, its call sent through ``queue_core.gateway.smtp``'s
transport to a second loopback server. What is compared is what each server received (envelope;
From, To, Cc, Reply-To, Subject; no Bcc header; each body part's type and text) and the node's
output as far as it is not the clock's (accepted, rejected, envelope, the server's reply).
n8n always runs (the outcome is not cached): the messages it sends are part of the proof.
Each case's addresses are at its own domain, so a received message is known by its case.
"""

from __future__ import annotations

import json
import tempfile
import uuid
from email import message_from_bytes, policy
from pathlib import Path
from typing import Any

import httpx

from queue_core.context import Trigger
from queue_core.gateway.smtp import SmtpTransport
from queue_core.provider import parse_provider

from tests.oracle import runner
from tests.oracle.scaffolded import run_with
from tests.oracle.outcome import Outcome
from tests.oracle.workflow import START, UNDER_TEST, input_name
from tests.support.smtp_server import Received

CREDENTIAL_ID = "oracleSmtp000001"
VERSIONS_PROVED = ("n8n-nodes-base.emailSend", (1.0, 2.0))  # the versions the cases run
COMPARED_OUTPUT = ("accepted", "rejected", "envelope", "response")
ITEMS = [{"name": "Ada", "email": "ada"}, {"name": "Grace Hopper", "email": "grace"}]


def credentials(port: int) -> list[dict[str, Any]]:
    """Return n8n's SMTP credential for the loopback server (no user: no AUTH; STARTTLS off)."""
    return [{"id": CREDENTIAL_ID, "name": "oracle smtp", "type": "smtp",
             "data": {"user": "", "password": "", "host": "127.0.0.1", "port": port, "secure": False,
                      "disableStartTls": True}}]


def email_cases() -> list[tuple[str, float, dict[str, Any]]]:
    """Return (case id, version, node parameters) of the fixed Send Email cases."""
    def at(n: int, extra: dict[str, Any]) -> dict[str, Any]:
        return {"fromEmail": f"Oracle Sender <sender@c{n}.test>", "toEmail": f"={{{{ $json.email }}}}@c{n}.test",
                "subject": "=Hello {{ $json.name }}", **extra}
    v2 = [
        ("text by default (the html field ignored, as v2 does)", at(1, {
            "text": "=Hi {{ $json.name }},\nthanks.", "html": "<p>ignored</p>", "options": {}})),
        ("html with cc, bcc and reply-to", at(2, {
            "emailFormat": "html", "html": "=<h2>Hi {{ $json.name }}</h2><p>Line &amp; more</p>",
            "options": {"ccEmail": "Copy <copy@c2.test>", "bccEmail": "hidden@c2.test", "replyTo": "reply@c2.test"}})),
        ("both parts, two recipients, non-ASCII", at(3, {
            "emailFormat": "both", "toEmail": "=First <{{ $json.email }}@c3.test>, second@c3.test",
            "subject": "=Grüße, {{ $json.name }} ✓", "text": "=Grüße {{ $json.name }} — ok",
            "html": "=<p>Grüße <b>{{ $json.name }}</b></p>", "options": {}})),
        ("text with n8n's attribution", at(4, {"text": "=Body for {{ $json.name }}",
                                                  "options": {"appendAttribution": True}})),
        ("a refused recipient", at(5, {"toEmail": "={{ $json.email }}@c5.test, refuse@c5.test", "text": "x",
                                         "options": {}})),
        ("both with an empty html part", at(6, {"emailFormat": "both", "text": "=only {{ $json.name }}", "html": "",
                                                  "options": {}})),
    ]
    v1 = [
        ("v1 text and html, cc and bcc", at(7, {"text": "=Hi {{ $json.name }}", "html": "=<p>{{ $json.name }}</p>",
                                                "ccEmail": "cc@c7.test", "bccEmail": "bcc@c7.test",
                                                "options": {"replyTo": "reply@c7.test"}})),
        ("v1 html only", at(8, {"html": "=<p>only {{ $json.name }}</p>"})),
        ("v1 neither part", at(9, {})),
    ]
    return [(case, 2.0, params) for case, params in v2] + [(case, 1.0, params) for case, params in v1]


def _document(version: float, parameters: dict[str, Any]) -> dict[str, Any]:
    source = "return " + json.dumps([{"json": item} for item in ITEMS]) + ";"
    return {"name": "oracle", "nodes": [
        {"name": START, "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0], "parameters": {}},
        {"name": input_name(0), "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [200, 0],
         "parameters": {"jsCode": source}},
        {"name": UNDER_TEST, "type": "n8n-nodes-base.emailSend", "typeVersion": version, "position": [400, 0],
         "parameters": parameters, "credentials": {"smtp": {"id": CREDENTIAL_ID, "name": "oracle smtp"}}}],
        "connections": {START: {"main": [[{"node": input_name(0), "type": "main", "index": 0}]]},
                        input_name(0): {"main": [[{"node": UNDER_TEST, "type": "main", "index": 0}]]}},
        "settings": {"executionOrder": "v1"}}


class _MailContext:
    """A context whose calls go through the SMTP transport to a loopback server, as the gateway sends them live."""

    def __init__(self, port: int) -> None:
        self.job_id = uuid.UUID(int=0)
        self.n8n_flows: list[Any] = []
        config = parse_provider("smtp", {"base_url": "smtp://smtp", "dsn_env": "SMTP_URL"})
        self.transport = SmtpTransport(config, {"SMTP_URL": f"smtp://127.0.0.1:{port}?starttls=false"})

    def decide(self, name: str, value: Any) -> None:
        return None

    async def call(self, provider: str, method: str, url: str, *, step: str, json: Any = None) -> httpx.Response:
        async with httpx.AsyncClient(mounts={"smtp://smtp": self.transport}) as client:
            response = await client.request(method, f"smtp://smtp{url}", json=json)
        response.raise_for_status()
        return response


def scaffold_run(document: dict[str, Any], workdir: Path, port: int) -> Outcome:
    """Scaffold the workflow and run it, its calls sent to the SMTP server on ``port``."""
    return run_with(document, workdir, _MailContext(port))


def seen(received: Received) -> dict[str, Any]:
    """Return what a received message is compared by: envelope, the headers that matter, the parts."""
    message = message_from_bytes(received.data, policy=policy.default)
    parts = [message] if not message.is_multipart() else [p for p in message.walk() if not p.is_multipart()]
    return {"sender": received.sender, "recipients": sorted(received.recipients),
            "headers": {h: str(message[h]) if message[h] is not None else None
                        for h in ("From", "To", "Cc", "Reply-To", "Subject", "Bcc")},
            "dated": message["Date"] is not None and message["Message-ID"] is not None,
            "type": message.get_content_type(),
            "parts": [(p.get_content_type(), p.get_content().replace("\r\n", "\n")) for p in parts]}


def by_case(received: list[Received]) -> dict[int, list[dict[str, Any]]]:
    """Group received messages by the case whose domain (``c<n>.test``) their recipients are at."""
    grouped: dict[int, list[dict[str, Any]]] = {}
    for message in received:
        domain = message.recipients[0].rsplit("@", 1)[1] if message.recipients else "c0.test"
        grouped.setdefault(int(domain[1:].split(".")[0]), []).append(seen(message))
    return {n: sorted(v, key=lambda m: json.dumps(m, sort_keys=True)) for n, v in grouped.items()}


def output(outcome: Outcome) -> list[dict[str, Any]] | None:
    """Return the node's output items reduced to the fields that are not the clock's."""
    items = outcome.nodes.get(UNDER_TEST)
    return None if items is None else [{k: i.get(k) for k in COMPARED_OUTPUT} for i in items[0]]


def measure(n8n_port: int, n8n_received: list[Received], my_port: int) -> list[tuple[str, Outcome, Outcome]]:
    """Run every case in n8n (one fresh batch) and in the scaffold; return (case, n8n's outcome, the scaffold's)."""
    cases = email_cases()
    documents = [{**_document(v, params), "id": runner.workflow_id(i)} for i, (_, v, params) in enumerate(cases)]
    oracle, _ = runner.run(documents, credentials=credentials(n8n_port))
    with tempfile.TemporaryDirectory(prefix="cutover-oracle-mail-") as tmp:
        return [(case_id, expected, scaffold_run(document, Path(tmp) / str(i), my_port))
                for i, ((case_id, _, _), document, expected) in enumerate(zip(cases, documents, oracle, strict=True))]
