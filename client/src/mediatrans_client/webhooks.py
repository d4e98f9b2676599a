"""Verifying task callbacks (contract section 6, docs/webhooks.md).

Two signatures come with every callback:

* ``X-Signature`` (the contract): the service signs the **callback URL string exactly as
  submitted** (query included), not the body: ``sha256=<lowercase hex HMAC-SHA256(key=signing
  secret, msg=callback URL)>``. Check it with :func:`verify_signature`.
* The Standard Webhooks headers (an extension): ``webhook-id``, ``webhook-timestamp`` and
  ``webhook-signature: v1,<base64 HMAC-SHA256(key=signing secret as UTF-8 bytes,
  msg="{id}.{timestamp}.{body}")>``, which cover the body and the time of sending. Check them
  with :func:`verify_webhook`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from collections.abc import Mapping

SIGNATURE_PREFIX = "sha256="
WEBHOOK_SIGNATURE_VERSION = "v1"
DEFAULT_TOLERANCE_S = 300


def compute_signature(url_or_body: str | bytes, secret: str | bytes) -> str:
    """The header value the service sends for ``url_or_body`` (the callback URL you registered)."""
    key = secret.encode() if isinstance(secret, str) else secret
    message = url_or_body.encode() if isinstance(url_or_body, str) else url_or_body
    return SIGNATURE_PREFIX + hmac.new(key, message, hashlib.sha256).hexdigest()


def verify_signature(url_or_body: str | bytes, header_value: str, secret: str | bytes) -> bool:
    """Whether ``header_value`` (``X-Signature``) was made with ``secret`` over ``url_or_body``; constant time.

    Pass the callback URL as you registered it, not as a proxy may have rewritten it.
    """
    if not isinstance(header_value, str) or not header_value:
        return False
    expected = compute_signature(url_or_body, secret)
    return hmac.compare_digest(expected.encode(), header_value.strip().encode())


def compute_webhook_signature(webhook_id: str, timestamp: int | str, body: bytes, secret: str | bytes) -> str:
    """The ``webhook-signature`` value the service sends: ``v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">``."""
    key = secret.encode() if isinstance(secret, str) else secret
    digest = hmac.new(key, f"{webhook_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return f"{WEBHOOK_SIGNATURE_VERSION}," + base64.b64encode(digest).decode("ascii")


def verify_webhook(
    body: bytes,
    headers: Mapping[str, str],
    secret: str | bytes,
    *,
    tolerance_s: float = DEFAULT_TOLERANCE_S,
    now: float | None = None,
) -> bool:
    """Whether a callback's Standard Webhooks headers sign exactly ``body`` with ``secret``, recently.

    Args:
        body: the raw request body, as received (before any JSON parsing).
        headers: the request headers; names are matched case-insensitively.
        secret: the account's signing secret (as ``mediatrans-admin secret`` shows it; used as UTF-8 bytes).
        tolerance_s: how far ``webhook-timestamp`` may be from ``now``, either way (replay window).
        now: Unix seconds to compare with (default: the clock).

    ``webhook-signature`` may hold several space-separated signatures (``v1,<base64>``); one
    match is enough, and signatures of other versions are ignored. Comparisons are constant time.
    Drop repeated ``webhook-id`` values yourself: a retry of one callback carries the same id.
    """
    found = {name.lower(): value for name, value in headers.items()}
    webhook_id, timestamp, signatures = (found.get(n, "") for n in ("webhook-id", "webhook-timestamp", "webhook-signature"))
    if not (webhook_id and isinstance(timestamp, str) and timestamp.isascii() and timestamp.isdigit() and len(timestamp) <= 12):
        return False
    if abs((time.time() if now is None else now) - int(timestamp)) > tolerance_s:
        return False
    expected = compute_webhook_signature(webhook_id, timestamp, bytes(body), secret).encode()
    matched = False
    for candidate in str(signatures).split(" "):
        if candidate.startswith(f"{WEBHOOK_SIGNATURE_VERSION},"):
            matched |= hmac.compare_digest(expected, candidate.encode())
    return matched
