"""Sign and verify outbound calls following the Standard Webhooks specification.

The signed content is ``{webhook-id}.{webhook-timestamp}.{raw body}``; the signature is
HMAC-SHA256 keyed with the base64-decoded secret (written ``whsec_<base64>``), sent as
``webhook-signature: v1,<base64>``. During key rotation several secrets sign the same message and
the header carries their signatures separated by single spaces. Pure functions: the timestamp
is an argument, never read from a clock.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from collections.abc import Mapping, Sequence
from .errors import SignatureError


SECRET_PREFIX = "whsec_"
DEFAULT_TOLERANCE = 300  # seconds; the specification's recommended replay window


def decode_secret(secret: str) -> bytes:
    """Return the key bytes of a ``whsec_<base64>`` secret (the prefix is optional).

    Raises SignatureError when the secret is empty or not base64; the message never contains
    the secret itself.
    """
    text = secret.strip()
    if text.startswith(SECRET_PREFIX):
        text = text[len(SECRET_PREFIX) :]
    try:
        key = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise SignatureError("signing secret is not valid base64 after the 'whsec_' prefix") from None
    if not key:
        raise SignatureError("signing secret is empty")
    return key


def _as_bytes(body: bytes | str) -> bytes:
    return body.encode("utf-8") if isinstance(body, str) else body


def sign_v1(secret: str, msg_id: str, timestamp: int, body: bytes | str) -> str:
    """Return one ``v1,<base64>`` signature of the message under ``secret``."""
    signed = f"{msg_id}.{int(timestamp)}.".encode() + _as_bytes(body)
    digest = hmac.new(decode_secret(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def standard_webhooks_headers(
    secret: str | Sequence[str], msg_id: str, timestamp: int, body: bytes | str
) -> dict[str, str]:
    """Return the ``webhook-id``, ``webhook-timestamp`` and ``webhook-signature`` headers.

    ``secret`` is one ``whsec_…`` secret or, during key rotation, a sequence of them (a string
    holding several whitespace-separated secrets counts as that sequence); each contributes one
    ``v1,…`` entry to the space-separated signature header, in the order given. ``body`` must
    be exactly the bytes sent. Raises SignatureError on an empty or malformed secret.
    """
    secrets = secret.split() if isinstance(secret, str) else list(secret)
    if not secrets:
        raise SignatureError("no signing secret given")
    signatures = " ".join(sign_v1(s, msg_id, timestamp, body) for s in secrets)
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(timestamp)),
        "webhook-signature": signatures,
    }


def verify_standard_webhooks(
    secret: str | Sequence[str],
    headers: Mapping[str, str],
    body: bytes | str,
    *,
    now: int,
    tolerance: int = DEFAULT_TOLERANCE,
) -> None:
    """Check a signed message; return None when one signature matches one of the secrets.

    ``now`` is the receiver's current unix time: a timestamp more than ``tolerance`` seconds away
    from it is refused (replay protection). Signatures of other versions than ``v1`` are ignored.
    Raises SignatureError naming the header that is missing or wrong; comparisons run in
    constant time.
    """
    lower = {k.lower(): v for k, v in headers.items()}
    for name in ("webhook-id", "webhook-timestamp", "webhook-signature"):
        if not lower.get(name):
            raise SignatureError(f"header {name!r} is missing")
    try:
        timestamp = int(lower["webhook-timestamp"])
    except ValueError:
        raise SignatureError("header 'webhook-timestamp' is not an integer") from None
    if abs(now - timestamp) > tolerance:
        raise SignatureError(f"header 'webhook-timestamp' is more than {tolerance} s from now")
    secrets = secret.split() if isinstance(secret, str) else list(secret)
    expected = [sign_v1(s, lower["webhook-id"], timestamp, body) for s in secrets]
    for entry in lower["webhook-signature"].split():
        if any(hmac.compare_digest(entry.encode(), e.encode()) for e in expected):
            return
    raise SignatureError("header 'webhook-signature' matches none of the secrets")
