"""HubSpot v2 nodes with parameters n8n's node does not read (hand-written workflows): translated as n8n runs them.

n8n reads a node's parameters by the names its description gives; any other parameter or field
is never read. ``contact.getAll`` with ``filters`` or ``additionalFields.properties`` (the v3
search API's shape) lists every contact as a plain contact.getAll does, and ``company.create``
with fields under other names (``domain``, ``phone`` …) creates the company with the fields n8n
knows only. The translation does the same — ``app_crm``'s translation of the node without them —
and says so in the node's note, loudly, since the workflow's author meant something else.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import app_crm
from harness.platforms.n8n.translate.app_request import Request
from harness.platforms.n8n.translate.nodes import Slot

_CONTACT_LIST = {"authentication", "resource", "operation", "returnAll", "limit", "additionalFields"}
_CONTACT_LIST_FIELDS = {"formSubmissionMode", "listMemberships", "propertiesCollection"}
_COMPANY_CREATE = {"authentication", "resource", "operation", "name", "additionalFields"}


def _params(node: Node) -> dict[str, Any]:
    return node.settings if node.described else node.parameters


def _contact_list_ignored(node: Node) -> list[str]:
    params = _params(node)
    extra = params.get("additionalFields") or {}
    return sorted(set(params) - _CONTACT_LIST) + [f"additionalFields.{k}" for k in sorted(set(extra) - _CONTACT_LIST_FIELDS)]


def _company_ignored(node: Node) -> list[str]:
    params = _params(node)
    known = {k for k in app_crm._COMPANY_FIELDS if k != "name"} | {"customPropertiesUi"}
    fields = params.get("additionalFields") or {}
    return sorted(set(params) - _COMPANY_CREATE) + [f"additionalFields.{k}" for k in sorted(set(fields) - known)]


def _note(ignored: list[str], what: str) -> str | None:
    if not ignored:
        return None
    shown = ", ".join(ignored[:6]) + (" …" if len(ignored) > 6 else "")
    return (f"NOTE: {shown} {'is' if len(ignored) == 1 else 'are'} not read by n8n's HubSpot v2 node (a hand-written "
            f"workflow?): n8n ignores {'it' if len(ignored) == 1 else 'them'} and {what}, and so does this translation")


def contacts_note(node: Node) -> str | None:
    """Return the loud note of a contact.getAll whose filters or fields n8n ignores (None: none)."""
    return _note(_contact_list_ignored(node), "lists every contact")


def company_note(node: Node) -> str | None:
    """Return the loud note of a company.create whose fields n8n ignores (None: none)."""
    return _note(_company_ignored(node), "creates the company with the fields it knows only")


def _without(node: Node, ignored: list[str]) -> Node:
    params = dict(_params(node))
    fields = dict(params.get("additionalFields") or {})
    for key in ignored:
        if key.startswith("additionalFields."):
            fields.pop(key.split(".", 1)[1], None)
        else:
            params.pop(key, None)
    params["additionalFields"] = fields
    return replace(node, parameters=params)


def contacts(node: Node, slot: Slot, provider: str) -> list[ast.stmt]:
    """contact.getAll as n8n runs it: the parameters it does not read left out (``app_crm.hubspot_contacts``)."""
    return app_crm.hubspot_contacts(_without(node, _contact_list_ignored(node)), slot, provider)


def company_create(node: Node) -> Request:
    """company.create as n8n runs it: the fields it does not read left out (``app_crm.hubspot_company_create``).

    An empty ``name`` (required) is a TODO: n8n refuses to run a workflow with the node (its issues check).
    """
    if _params(node).get("name") in (None, ""):
        under = " (a name under additionalFields is not read)" if "name" in (_params(node).get("additionalFields") or {}) else ""
        raise Untranslatable(f"the required parameter name is empty{under}: n8n refuses to run the workflow "
                             "(\"The workflow has issues\"); set the company's name in the node")
    return app_crm.hubspot_company_create(_without(node, _company_ignored(node)))
