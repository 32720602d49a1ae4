"""queue_core.redaction: one header policy for ingress, taps and the gateway; secrets by value."""

from __future__ import annotations

import json

import pytest

from harness.redact import is_sensitive_header
from queue_core.gateway import redact_headers
from queue_core.provider import parse_provider
from queue_core.redaction import MASK, Redactor, is_credential_header
from queue_core.server.ingress import safe_headers
from queue_core.server.verify import DELIVERY_ID_HEADERS

CREDENTIALS = ("authorization", "Proxy-Authorization", "cookie", "set-cookie", "x-apikey", "api-key", "x-api_key",
               "x-key", "x-access-token", "x-client-secret", "x-hub-signature-256", "x-shopify-hmac-sha256",
               "x-password", "x-auth-user", "x-session")
IDS_AND_PLAIN = ("x-github-delivery", "webhook-id", "x-shopify-webhook-id", "idempotency-key", "content-type",
                 "x-github-event", "user-agent", "x-request-id")


@pytest.mark.parametrize("name", CREDENTIALS)
def test_ingress_the_record_taps_and_the_gateway_all_deny_a_credential_header(name: str) -> None:
    assert safe_headers({name: "v"}) == {}
    assert is_sensitive_header(name)
    assert redact_headers(((name, "v"),)) == ((name, "[redacted]"),)


@pytest.mark.parametrize("name", IDS_AND_PLAIN)
def test_delivery_ids_and_plain_headers_are_kept_by_all_three(name: str) -> None:
    assert safe_headers({name: "v"}) == {name: "v"}
    assert not is_sensitive_header(name)
    assert redact_headers(((name, "v"),)) == ((name, "v"),)


def test_every_verified_schemes_delivery_id_header_is_an_id_not_a_credential() -> None:
    assert [h for h in DELIVERY_ID_HEADERS.values() if h and is_credential_header(h)] == []


def test_a_secret_is_masked_whole_embedded_json_escaped_and_url_encoded_in_data_and_keys() -> None:
    secret = 'a/b"c+d=e&f'
    redactor = Redactor.of([secret])
    data = {"whole": secret, "body": json.dumps({"e": f"bad key {secret}"}), "url": "/x?k=a%2Fb%22c%2Bd%3De%26f",
            secret: 1, "n": 3}
    assert json.dumps(redactor.data(data)).count("***") == 4 and secret not in repr(redactor.data(data))
    assert redactor.data(data)["n"] == 3 and redactor.text(f"failed: {secret}") == f"failed: {MASK}"


def test_data_keeps_prose_and_ids_but_masks_a_scheme_credential() -> None:
    redactor = Redactor()
    kept = {"msg": "Bearer token required", "id": "sha256:" + "ab12" * 16}
    assert redactor.data(kept) == kept
    assert redactor.data({"e": "got Bearer abc123def456"}) == {"e": "got Bearer ***"}


def test_every_env_field_of_a_provider_names_a_secret_to_redact() -> None:
    config = parse_provider("crm", {"base_url": "https://crm.test", "auth_env": "T", "signing_secret_env": "S"})
    assert config.secret_env_names() == ("T", "S")
