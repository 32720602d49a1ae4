"""queue_core.gateway.secrets: the secrets a gateway redacts are read at each ask, cheaply."""

from __future__ import annotations

import os

import pytest

from queue_core.gateway.secrets import KnownSecrets
from queue_core.provider import parse_provider
from queue_core.redaction import MASK, Redactor

PROVIDERS = {"crm": parse_provider("crm", {"base_url": "https://crm.test", "auth_env": "CUTOVER_TEST_CRM_TOKEN",
                                           "signing_secret_env": "CUTOVER_TEST_CRM_SIGNING"})}


@pytest.mark.parametrize("from_os_environ", [True, False])
def test_a_value_set_changed_or_removed_is_seen_at_the_next_ask(monkeypatch: pytest.MonkeyPatch,
                                                                from_os_environ: bool) -> None:
    environ: dict[str, str] = {}
    known = KnownSecrets(os.environ if from_os_environ else environ)

    def setenv(name: str, value: str) -> None:
        if from_os_environ:
            monkeypatch.setenv(name, value)
        else:
            environ[name] = value

    monkeypatch.delenv("CUTOVER_TEST_CRM_TOKEN", raising=False)
    monkeypatch.delenv("CUTOVER_TEST_CRM_SIGNING", raising=False)
    assert known.redactor(PROVIDERS).secrets == frozenset()
    setenv("CUTOVER_TEST_CRM_TOKEN", "tok-än-12345")
    assert known.redactor(PROVIDERS).text("x tok-än-12345 y") == f"x {MASK} y"
    assert known.redactor(PROVIDERS) is known.redactor(PROVIDERS)  # built once per set of values
    setenv("CUTOVER_TEST_CRM_TOKEN", "other-654321")
    redactor = known.redactor(PROVIDERS)
    assert redactor.text("tok-än-12345 other-654321") == f"tok-än-12345 {MASK}"
    if from_os_environ:
        monkeypatch.delenv("CUTOVER_TEST_CRM_TOKEN")
    else:
        del environ["CUTOVER_TEST_CRM_TOKEN"]
    setenv("CUTOVER_TEST_CRM_SIGNING", "whsec-abcdef")
    assert known.redactor(PROVIDERS).secrets == Redactor.of(["whsec-abcdef"]).secrets


def test_the_headers_sent_are_known_too_and_a_new_provider_is_read() -> None:
    known = KnownSecrets({"CUTOVER_TEST_CRM_TOKEN": "tok-123456", "OTHER": "oth-123456"})
    known.add_sent({"sent-abcdef"})
    assert known.redactor(PROVIDERS).text("tok-123456 sent-abcdef oth-123456") == f"{MASK} {MASK} oth-123456"
    more = {**PROVIDERS, "x": parse_provider("x", {"base_url": "https://x.test", "auth_env": "OTHER"})}
    assert known.redactor(more).text("oth-123456") == MASK


def test_masked_texts_and_headers_are_remembered_per_redactor_and_stay_right() -> None:
    one, two = Redactor.of(["s3cret-1"]), Redactor.of(["s3cret-2"])
    for _ in range(2):  # the second time from the memo
        assert one.text("a s3cret-1 b s3cret-2 Bearer abc") == f"a {MASK} b s3cret-2 Bearer ***"
        assert two.text("a s3cret-1 b s3cret-2 Bearer abc") == f"a s3cret-1 b {MASK} Bearer ***"
        assert one.header("Location", "https://x/?token=abc&s=s3cret-1") == f"https://x/?token=***&s={MASK}"
        assert one.header("X-Api-Key", "v") == "[redacted]"
