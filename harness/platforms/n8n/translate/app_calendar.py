"""Google Calendar v1–v1.3 *Create Event* as n8n's node runs it (runtime: ``queue_core.compat._n8n_calendar``).

Per item one ``POST /calendar/v3/calendars/<id>/events``; the start and end are read in the
workflow's timezone (n8n's ``getTimezone``). A workflow with no timezone setting is a TODO: n8n
then reads them in its instance's ``GENERIC_TIMEZONE``, which the export does not hold. A
conference (``conferenceDataUi``: n8n sends a random request id) is not translated.
"""

from __future__ import annotations

import ast

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.nodes import Slot
from harness.scaffold._code import name, stmts

BASE = "https://www.googleapis.com/calendar/v3/calendars/"


def event_create(node: Node, slot: Slot, provider: str) -> list[ast.stmt]:
    """event.create: the event's body per item, the run's query shared across items as n8n shares it."""
    if not node.described:
        raise Untranslatable(f"googleCalendar v{node.version:g} has no known description (its defaults are unknown)")
    if not slot.timezone:
        raise Untranslatable("the workflow sets no timezone: n8n reads the event's start and end in its instance's "
                             "GENERIC_TIMEZONE (America/New_York unless set), which the export does not hold; set the "
                             "workflow's timezone")
    params = node.settings
    fields = dict(params.get("additionalFields") or {})
    if fields.get("conferenceDataUi"):
        raise Untranslatable("additionalFields.conferenceDataUi is not translated (n8n sends a random request id)")
    raw = params.get("calendar")
    locator = raw if isinstance(raw, dict) else {"mode": "id", "value": raw}
    if locator.get("mode") == "url":
        raise Untranslatable("the calendar is given by URL: n8n reads its id from it; give the id")
    return stmts("""
items = $inp
$var: n8n.Items = []
query: dict[str, object] = {}
for i, item in enumerate(items):
    body = n8n.calendar_event(query, $start, $end, $fields, zone=$zone, default_reminders=$default, reminders=$reminders)
    response = await ctx.call($provider, 'POST', n8n.concat($base, n8n.calendar_id($calendar), '/events'), json=body, params=dict(query), step=$step)
    $var.append({'json': response.json()})
if items:
    flow.emit($node, $var)
""", inp=slot.inputs[0] if slot.inputs else [], var=name(slot.var), start=expr.value(params.get("start", "")),
                 end=expr.value(params.get("end", "")), fields=expr.value(fields), zone=slot.timezone,
                 default=expr.value(params.get("useDefaultReminders", True)),
                 reminders=expr.value(params.get("remindersUi") or {}), provider=provider, base=BASE,
                 calendar=expr.value(locator.get("value", "")), step=slot.step, node=node.name)
