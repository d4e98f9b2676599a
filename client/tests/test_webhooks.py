"""verify_signature against the service's own signer (core/webhooks/payloads.py ``sign``)."""

from __future__ import annotations

import ast
import hashlib
import hmac
import sys
from collections.abc import Callable

import pytest

from conftest import SERVICE_ROOT
from mediatrans_client.webhooks import verify_signature

URL = "https://hooks.example.com/mt?tenant=7&token=abc"
SECRET = "whsec_test_secret"


def service_sign() -> Callable[[str, str], str]:
    """The service's ``sign``: imported when its package loads here, else its own source, executed alone."""
    sys.path.insert(0, str(SERVICE_ROOT))
    try:
        from core.webhooks.payloads import sign  # needs the service's dependencies (redis...)

        return sign
    except Exception:
        pass
    finally:
        sys.path.remove(str(SERVICE_ROOT))
    source_path = SERVICE_ROOT / "core" / "webhooks" / "payloads.py"
    if not source_path.is_file():
        pytest.skip("service source not available")
    tree = ast.parse(source_path.read_text())
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "sign")
    namespace: dict = {"hashlib": hashlib, "hmac": hmac}
    exec(compile(ast.Module(body=[node], type_ignores=[]), str(source_path), "exec"), namespace)
    return namespace["sign"]


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
