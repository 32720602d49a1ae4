"""n8n's execution custom data (the Execution Data node, ``$execution.customData.setAll``).

What n8n does (``ExecutionData`` node, n8n-core's ``execution-metadata``): for every item, the
``key``/``value`` pairs of ``dataToSave`` (a later pair of one key wins; from version 1.1 a falsy
value — ``""``, ``0``, ``false``, null — is saved as ``""``) are set on the execution's custom data:

- at most 10 keys: a new key past the tenth is ignored;
- a key may hold only ``A-Za-z0-9_`` and a value must be text or a number: a pair that does not is
  not stored, with n8n's message (``Custom data values must be a string (key "k")``), and the
  item's other pairs are; in a production execution (a trigger's, a webhook's: what is migrated)
  n8n logs that message and the node goes on, only a manual test run fails on it
  (``getAdditionalKeys``' ``customData.setAll``). Here the messages go in the ledger event
  (``refused``);
- keys are cut at 50 characters and values (as text) at 512.

The node outputs its input items unchanged. Here the custom data goes to the job's ledger, one
``n8n_custom_data`` event per node run holding what it set and the execution's custom data so far:
an operator finds an execution by it with SQL (``SELECT job_id FROM ledger WHERE kind =
'n8n_custom_data' AND detail->'data'->>'orderId' = '42'``), as n8n's execution list filters by it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

KV_LIMIT = 10
KEY_CHARS = 50
VALUE_CHARS = 512
_KEY = re.compile(r"[A-Za-z0-9_]*")

Items = list[dict[str, Any]]


def _emitted(flow: Any, node: str, items: Items) -> Items:
    """Record ``items`` as ``node``'s output (``Flow.emit``) and return them."""
    flow.emit(node, items)
    return items


def _number_text(value: int | float) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _set(data: dict[str, str], key: Any, value: Any) -> str | None:
    """Set one pair as n8n's ``setWorkflowExecutionMetadata`` does; return its error message, if any."""
    if key not in data and len(data) >= KV_LIMIT:
        return None
    if not isinstance(key, str):
        return f'Custom data keys must be a string (key "{key}")'
    if not _KEY.fullmatch(key):
        return f'Custom date key can only contain characters "A-Za-z0-9_" (key "{key}")'
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return f'Custom data values must be a string (key "{key}")'
    data[key[:KEY_CHARS]] = (value if isinstance(value, str) else _number_text(value))[:VALUE_CHARS]
    return None


async def execution_data(flow: Any, node: str, items: Items,
                         pairs: Callable[[dict[str, Any], int], Sequence[tuple[Any, Any]]], *,
                         version: float = 1.1) -> Items:
    """Set each item's pairs on the execution's custom data (the job's ledger); return the items unchanged."""
    total: dict[str, str] = dict(getattr(flow, "custom_data", {}))
    saved: dict[str, str] = {}
    refused: list[str] = []
    for index, item in enumerate(items):
        values: dict[Any, Any] = {}
        for key, value in flow._guard(node, index, lambda: pairs(item, index)):  # noqa: B023 - called at once
            values[key] = value if value or version < 1.1 else ""
        refused += [e for e in (_set(total, k, v) for k, v in values.items()) if e and e not in refused]
        saved.update({k: total[k] for k in (str(k)[:KEY_CHARS] for k in values) if k in total})
    flow.custom_data = total  # the execution's custom data so far (a later Execution Data node adds to it)
    ledger = getattr(flow.ctx, "ledger", None)
    if (saved or refused) and ledger is not None:
        await ledger("n8n_custom_data", {"node": node, "set": saved, "data": total,
                                         **({"refused": refused} if refused else {})})
    return _emitted(flow, node, items)
