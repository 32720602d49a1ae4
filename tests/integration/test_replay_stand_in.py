"""A provider the code calls but pyproject.toml does not configure: the replay names what to add."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest

from harness.recording import LegacyTrace, Platform, RecordedTrigger, TraceStatus
from harness.shadow.cases import Case, ReplayOptions, shadow_providers
from harness.shadow.replay import ShadowReplayer
from queue_core import Context, Registry, Trigger, automation
from queue_core.gateway import resolve_url
from queue_core.provider import ProviderConfig
from queue_core.errors import ForeignURLError, ProviderNotConfiguredError, StandInURLError

registry = Registry()
FIND = "https://enrich.example.test/v2/companies/find"


@automation("absolute-enricher", registry=registry)
async def absolute_enricher(ctx: Context, trigger: Trigger) -> None:
    await ctx.call("enrich", "POST", FIND, json={"domain": trigger.body["domain"]}, step="find")


def test_an_unconfigured_provider_called_by_absolute_url_names_the_base_url_to_add(fresh_db_url: str) -> None:
    trigger = RecordedTrigger("t1", datetime(2024, 6, 3, 9, 12, tzinfo=UTC), {}, {"domain": "a.example"}, "recorder")
    case = Case(1, "absolute-enricher", trigger, LegacyTrace("t1", TraceStatus.SUCCEEDED, Platform.MAKE, outputs={}))

    async def go() -> list[Any]:
        providers = shadow_providers({}, ["enrich"])
        async with ShadowReplayer(fresh_db_url, registry, providers, ReplayOptions(workers=1, concurrency=1)) as replayer:
            return await replayer.replay([case])

    (result,) = asyncio.run(go())
    assert result.status == "failed"
    assert ("provider 'enrich' is not configured in pyproject.toml: add [tool.cutover.providers.enrich] "
            'with base_url = "https://enrich.example.test"') in result.trace["error"]
    assert "shadow.invalid" not in result.trace["error"]


def test_the_stand_in_error_keeps_the_port_and_is_a_provider_not_configured_error() -> None:
    stand_in = shadow_providers({}, ["enrich"])["enrich"]
    with pytest.raises(StandInURLError) as caught:
        resolve_url(stand_in, "http://localhost:8080/v2/find?x=1", None)
    assert isinstance(caught.value, ProviderNotConfiguredError)
    assert caught.value.origin == "http://localhost:8080"
    assert resolve_url(stand_in, "/v2/find", None) == "https://enrich.shadow.invalid/v2/find"


def test_a_configured_provider_still_refuses_a_foreign_url() -> None:
    configured = shadow_providers({"enrich": ProviderConfig("enrich", base_url="https://api.enrich.test")}, ["enrich"])
    with pytest.raises(ForeignURLError) as caught:
        resolve_url(configured["enrich"], FIND, None)
    assert not isinstance(caught.value, StandInURLError)
