"""An unknown automation name is refused with the registered names and the closest one, so every
door (CLI, API, webhooks, Python) says "did you mean" from the one error."""

from __future__ import annotations

import pytest

from queue_core import Registry, UnknownAutomationError, automation

names = Registry()
for name in ("handle-ticket", "lead-router", "payment-dunning"):
    @automation(name, registry=names)
    async def fn(ctx, trigger):
        return None


def test_a_misspelt_name_gets_the_closest_registered_one():
    with pytest.raises(UnknownAutomationError) as caught:
        names.get("handle-tiket")
    assert caught.value.suggestion == "handle-ticket"
    assert str(caught.value).endswith("; did you mean 'handle-ticket'?")
    assert "registered: handle-ticket, lead-router, payment-dunning" in str(caught.value)
    assert caught.value.field == "automation"


def test_a_name_close_to_none_gets_no_suggestion():
    with pytest.raises(UnknownAutomationError) as caught:
        names.get("zzz")
    assert caught.value.suggestion is None and "did you mean" not in str(caught.value)
    with pytest.raises(UnknownAutomationError, match=r"registered: \(none registered\)$"):
        Registry().get("lead-router")
