"""n8n's execution custom data (the Execution Data node, ``$execution.customData.setAll``).

What n8n does: for every item, each ``key``/``value`` of ``dataToSave`` is set on the execution's
custom data (keys are cut at 50 characters and values at 512, as the node's hints say; a value is
stored as text; from node version 1.1 an empty value is ``""``), and the node outputs its input
items unchanged. Here the custom data goes to the job's ledger, as one ``n8n_custom_data`` event per
node run holding what the node set and the execution's custom data so far: an operator finds an
execution by it with SQL (``SELECT job_id FROM ledger WHERE kind = 'n8n_custom_data' AND
detail->'data'->>'orderId' = '42'``), as n8n's execution list filters by it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

KEY_CHARS = 50
VALUE_CHARS = 512

Items = list[dict[str, Any]]


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


async def execution_data(flow: Any, node: str, items: Items,
                         pairs: Callable[[dict[str, Any], int], Sequence[tuple[Any, Any]]], *,
                         version: float = 1.1) -> Items:
    """Set each item's pairs on the execution's custom data (the job's ledger); return the items unchanged."""
    saved: dict[str, str] = {}
    for index, item in enumerate(items):
        for key, value in flow._guard(node, index, lambda: pairs(item, index)):  # noqa: B023 - called at once
            if not value and version >= 1.1:
                value = ""
            saved[_text(key)[:KEY_CHARS]] = _text(value)[:VALUE_CHARS]
    total = dict(getattr(flow, "custom_data", {}))
    total.update(saved)
    flow.custom_data = total  # the execution's custom data so far (the next Execution Data node merges into it)
    ledger = getattr(flow.ctx, "ledger", None)
    if saved and ledger is not None:
        await ledger("n8n_custom_data", {"node": node, "set": saved, "data": total})
    return flow.emit(node, items)
