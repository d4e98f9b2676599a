"""Verifying the ``X-Signature`` header of task callbacks (contract section 6, docs/webhooks.md).

The service signs the **callback URL string exactly as submitted** (query included), not
the body: ``sha256=<lowercase hex HMAC-SHA256(key=signing secret, msg=callback URL)>``.
"""

from __future__ import annotations

import hashlib
import hmac

SIGNATURE_PREFIX = "sha256="


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
