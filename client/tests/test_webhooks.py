"""verify_signature and verify_webhook against the service's own signers (core/webhooks/payloads.py)."""

from __future__ import annotations

import ast
import base64
import hashlib
import hmac
import sys
import time
from collections.abc import Callable

import pytest

import mediatrans_client
from conftest import SERVICE_ROOT
from mediatrans_client.webhooks import compute_webhook_signature, verify_signature, verify_webhook

URL = "https://hooks.example.com/mt?tenant=7&token=abc"
SECRET = "whsec_test_secret"


def service_function(name: str) -> Callable:
    """A signer of the service: imported when its package loads here, else its own source, executed alone."""
    sys.path.insert(0, str(SERVICE_ROOT))
    try:
        from core.webhooks import payloads  # needs the service's dependencies (redis...)

        return getattr(payloads, name)
    except Exception:
        pass
    finally:
        sys.path.remove(str(SERVICE_ROOT))
    source_path = SERVICE_ROOT / "core" / "webhooks" / "payloads.py"
    if not source_path.is_file():
        pytest.skip("service source not available")
    tree = ast.parse(source_path.read_text())
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in (name, "standard_signature")]
    if name not in {n.name for n in functions}:
        pytest.skip(f"the service has no {name}")
    namespace: dict = {"base64": base64, "hashlib": hashlib, "hmac": hmac}
    exec(compile(ast.Module(body=functions, type_ignores=[]), str(source_path), "exec"), namespace)
    return namespace[name]


def service_sign() -> Callable[[str, str], str]:
    return service_function("sign")


def documented_sign(url: str, secret: str) -> str:
    return "sha256=" + hmac.new(secret.encode(), url.encode(), hashlib.sha256).hexdigest()


def test_accepts_the_service_signature() -> None:
    header = service_sign()(URL, SECRET)
    assert header == documented_sign(URL, SECRET)
    assert verify_signature(URL, header, SECRET)
    assert verify_signature(URL.encode(), header, SECRET.encode())


@pytest.mark.parametrize(
    ("url", "header_secret", "mutate"),
    [
        (URL + "&x=1", SECRET, lambda h: h),  # tampered URL/body
        (URL, "other-secret", lambda h: h),  # wrong secret
        (URL, SECRET, lambda h: h[:-1] + ("0" if h[-1] != "0" else "1")),  # altered digest
        (URL, SECRET, lambda h: h.removeprefix("sha256=")),  # missing prefix
        (URL, SECRET, lambda h: ""),  # empty header
    ],
)
def test_rejects_tampering(url: str, header_secret: str, mutate: Callable[[str], str]) -> None:
    header = mutate(documented_sign(URL, header_secret))
    assert not verify_signature(url, header, SECRET)


# --------------------------------------------------------------------- Standard Webhooks headers

BODY = '{"task_id":"t1","status":"completed","result":{"note":"naïve ✓"}}'.encode()
WEBHOOK_ID = "whd_8c1f0000000000000000000000000000"
SENT_AT = 1_767_312_000


def service_headers(body: bytes = BODY, secret: str = SECRET, timestamp: int = SENT_AT) -> dict[str, str]:
    """The headers the service sends (its ``standard_headers``), in the case an HTTP framework may show them."""
    sent = service_function("standard_headers")(WEBHOOK_ID, timestamp, body, secret)
    return {name.title(): value for name, value in sent.items()}


def documented_webhook_signature(webhook_id: str, timestamp: int, body: bytes, secret: str) -> str:
    mac = hmac.new(secret.encode("utf-8"), f"{webhook_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(mac).decode()


def test_verify_webhook_accepts_the_service_headers() -> None:
    headers = service_headers()
    assert headers["Webhook-Signature"] == documented_webhook_signature(WEBHOOK_ID, SENT_AT, BODY, SECRET)
    assert compute_webhook_signature(WEBHOOK_ID, SENT_AT, BODY, SECRET) == headers["Webhook-Signature"]
    assert verify_webhook(BODY, headers, SECRET, now=SENT_AT + 10)
    assert verify_webhook(BODY, {k.lower(): v for k, v in headers.items()}, SECRET.encode(), now=SENT_AT - 10)
    assert mediatrans_client.verify_webhook is verify_webhook


def test_verify_webhook_accepts_one_matching_signature_among_several() -> None:
    headers = service_headers()
    good = headers["Webhook-Signature"]
    other = documented_webhook_signature(WEBHOOK_ID, SENT_AT, BODY, "rotated-secret")
    for listed in (f"{other} {good}", f"{good} {other}", f"v2,abc {good}", f"v1a,x {other} {good}"):
        assert verify_webhook(BODY, {**headers, "Webhook-Signature": listed}, SECRET, now=SENT_AT)
    assert not verify_webhook(BODY, {**headers, "Webhook-Signature": f"{other} v2,{good[3:]}"}, SECRET, now=SENT_AT)


def test_verify_webhook_checks_the_timestamp_window() -> None:
    headers = service_headers()
    assert verify_webhook(BODY, headers, SECRET, now=SENT_AT + 300)
    assert verify_webhook(BODY, headers, SECRET, now=SENT_AT - 300)
    assert not verify_webhook(BODY, headers, SECRET, now=SENT_AT + 301)  # replayed later
    assert not verify_webhook(BODY, headers, SECRET, now=SENT_AT - 301)  # from the future
    assert verify_webhook(BODY, headers, SECRET, now=SENT_AT + 3000, tolerance_s=3600)
    assert not verify_webhook(BODY, headers, SECRET)  # the real clock is years past SENT_AT
    fresh = service_headers(timestamp=int(time.time()))
    assert verify_webhook(BODY, fresh, SECRET)


def _tampered(headers: dict[str, str], name: str, value: str | None) -> dict[str, str]:
    changed = {k: v for k, v in headers.items() if k != name}
    return changed if value is None else {**changed, name: value}


@pytest.mark.parametrize(
    ("body", "secret", "name", "value"),
    [
        (BODY.replace(b"completed", b"failed"), SECRET, "", None),  # tampered body
        (BODY + b"\n", SECRET, "", None),  # one byte more
        (BODY, "other-secret", "", None),  # wrong secret
        (BODY, SECRET, "Webhook-Id", "whd_other"),  # another message's id
        (BODY, SECRET, "Webhook-Timestamp", str(SENT_AT + 1)),  # a new timestamp, old signature
        (BODY, SECRET, "Webhook-Timestamp", "1767312000.0"),  # not an integer
        (BODY, SECRET, "Webhook-Timestamp", "9" * 5000),  # absurd
        (BODY, SECRET, "Webhook-Timestamp", None),  # missing
        (BODY, SECRET, "Webhook-Id", None),
        (BODY, SECRET, "Webhook-Signature", None),
        (BODY, SECRET, "Webhook-Signature", ""),
        (BODY, SECRET, "Webhook-Signature", "v1,"),
        (BODY, SECRET, "Webhook-Signature", "v1,ünïcode"),
    ],
)
def test_verify_webhook_rejects_tampering(body: bytes, secret: str, name: str, value: str | None) -> None:
    headers = service_headers()
    if name:
        headers = _tampered(headers, name, value)
    assert not verify_webhook(body, headers, secret, now=SENT_AT)
