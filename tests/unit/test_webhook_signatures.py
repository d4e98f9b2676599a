"""Standard Webhooks headers on callbacks: they sign the exact body sent, per attempt, with a stable id.

WebhookSender over the test Redis; the only stand-in is the HTTP send (``send_pinned``), which
records what would go on the wire. Signatures are checked with an HMAC computed here, not with the
service's signer. The docs' Python and Node verifiers are run against a real callback too.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from redis.asyncio import Redis

from core import keys
from core.accounts import Account, AccountStore
from core.tasks import Task, TaskState
from core.webhooks import WebhookSender, sign
from core.webhooks import sender as sender_module
from engines.net import UrlPolicy

ROOT = Path(__file__).resolve().parents[2]
SECRET = "0f1e2d3c4b5a69788796a5b4c3d2e1f0-ünïcode"  # used as UTF-8 bytes, never decoded
ACCOUNT = Account(id="acct_sig", name="sig", created_at=0.0, signing_secret=SECRET)
LOOPBACK_OK = UrlPolicy(allow_private=True, allowed_ports=frozenset(range(1, 65536)))
URL = "http://127.0.0.1:8080/hook?ref=7"
START = 1_767_312_000.0


@dataclass
class Sent:
    headers: dict[str, str]
    body: bytes


class Wire:
    """Stands in for ``send_pinned``: records each request and answers the programmed statuses (then 200)."""

    def __init__(self) -> None:
        self.sent: list[Sent] = []
        self.statuses: list[int] = []

    async def __call__(self, client: Any, method: str, target: Any, *, headers: Any, content: bytes) -> httpx.Response:
        assert method == "POST"
        self.sent.append(Sent(dict(headers), content))
        status = self.statuses.pop(0) if self.statuses else 200
        return httpx.Response(status, request=httpx.Request(method, URL))


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The sender's clock, moved by the tests."""
    now = [START]
    monkeypatch.setattr(sender_module, "time", SimpleNamespace(time=lambda: now[0]))
    return now


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch) -> Wire:
    recorded = Wire()
    monkeypatch.setattr(sender_module, "send_pinned", recorded)
    return recorded


@pytest.fixture
def hooks(redis_client: Redis) -> WebhookSender:
    return WebhookSender(redis_client, LOOPBACK_OK, timeout_s=2, base_delay_s=10, max_delay_s=100, rng=random.Random(3))


def finished(task_id: str, *, kind: str = "video", url: str = URL) -> Task:
    result: dict[str, Any] = {"subtitle_url": "https://api.example.com/v1/files/t/a.srt?sig=x", "note": "naïve ✓"}
    if kind == "voice":
        result = {"voice_id": "vc_1", "voice_name": "Ann", "lang": "en", "status": "ready", "quality_score": 0.91}
    return Task(
        task_id=task_id, account_id=ACCOUNT.id, status=TaskState.COMPLETED, created_at=START,
        params={"callback_url": url}, result=result, kind=kind,
    )  # fmt: skip


def independent_signature(webhook_id: str, timestamp: str, body: bytes, secret: str) -> str:
    mac = hmac.new(secret.encode("utf-8"), webhook_id.encode() + b"." + timestamp.encode() + b"." + body, hashlib.sha256)
    return "v1," + base64.b64encode(mac.digest()).decode()


def verifies(sent: Sent, secret: str = SECRET, body: bytes | None = None) -> bool:
    h = sent.headers
    expected = independent_signature(h["webhook-id"], h["webhook-timestamp"], sent.body if body is None else body, secret)
    return any(hmac.compare_digest(expected, s) for s in h["webhook-signature"].split(" "))


@pytest.mark.parametrize("kind", ["video", "voice"])
async def test_every_callback_carries_standard_headers_over_the_exact_body(
    hooks: WebhookSender, wire: Wire, clock: list[float], kind: str
) -> None:
    delivery_id = await hooks.schedule(finished("task-1", kind=kind), ACCOUNT)
    assert await hooks.deliver_due() == 1
    [sent] = wire.sent
    assert {"webhook-id", "webhook-timestamp", "webhook-signature"} <= set(sent.headers)
    assert sent.headers["webhook-id"] == sent.headers["X-Webhook-Id"] == delivery_id
    assert sent.headers["webhook-timestamp"] == str(int(START))
    assert re.fullmatch(r"v1,[A-Za-z0-9+/]{43}=", sent.headers["webhook-signature"])
    assert verifies(sent)
    assert json.loads(sent.body)["status"] in ("completed", "ready")  # the body signed is the body sent
    assert sent.headers["X-Signature"] == sign(URL, SECRET)  # the contract's header is unchanged
    assert "signing_secret" not in await hooks.delivery("task-1")


async def test_tampering_fails_verification(hooks: WebhookSender, wire: Wire, clock: list[float]) -> None:
    await hooks.schedule(finished("task-t"), ACCOUNT)
    await hooks.deliver_due()
    [sent] = wire.sent
    assert verifies(sent)
    forged = sent.body.replace(b'"completed"', b'"failed"')
    assert forged != sent.body and not verifies(sent, body=forged)
    assert not verifies(sent, body=sent.body + b" ")
    assert not verifies(sent, secret=SECRET + "x")
    replayed = Sent({**sent.headers, "webhook-timestamp": str(int(START) + 3600)}, sent.body)
    assert not verifies(replayed)  # a new timestamp needs a new signature


async def test_the_id_is_stable_across_retries_and_each_attempt_is_signed_anew(
    hooks: WebhookSender, wire: Wire, clock: list[float]
) -> None:
    wire.statuses = [500, 503]
    delivery_id = await hooks.schedule(finished("task-r"), ACCOUNT)
    for step in (0.0, 30.0, 60.0):
        clock[0] = START + step
        assert await hooks.deliver_due() == 1
    assert (await hooks.delivery("task-r"))["state"] == "delivered"
    assert [s.headers["X-Webhook-Attempt"] for s in wire.sent] == ["1", "2", "3"]
    assert {s.headers["webhook-id"] for s in wire.sent} == {delivery_id}
    assert [s.headers["webhook-timestamp"] for s in wire.sent] == [str(int(START + t)) for t in (0, 30, 60)]
    assert len({s.headers["webhook-signature"] for s in wire.sent}) == 3
    assert len({s.body for s in wire.sent}) == 1
    assert all(verifies(s) for s in wire.sent)


async def test_the_id_differs_between_deliveries(hooks: WebhookSender, wire: Wire, clock: list[float]) -> None:
    await hooks.schedule(finished("task-a"), ACCOUNT)
    await hooks.schedule(finished("task-b"), ACCOUNT)
    assert await hooks.deliver_due() == 2
    assert len({s.headers["webhook-id"] for s in wire.sent}) == 2
    assert all(verifies(s) for s in wire.sent)


async def test_a_delivery_scheduled_before_the_secret_was_recorded_uses_the_accounts_secret(
    redis_client: Redis, hooks: WebhookSender, wire: Wire, clock: list[float]
) -> None:
    stored = await AccountStore(redis_client).create("legacy-" + str(random.random()))
    gone = Account(id="acct_gone", name="gone", created_at=0.0, signing_secret="old")
    await hooks.schedule(finished("task-l"), stored)
    await hooks.schedule(finished("task-g"), gone)
    for task_id in ("task-l", "task-g"):
        await redis_client.hdel(keys.webhook_delivery(task_id), "signing_secret")  # as an older sender wrote it
    assert await hooks.deliver_due() == 2
    by_url_secret = {s.headers["X-Signature"]: s for s in wire.sent}
    legacy, orphan = by_url_secret[sign(URL, stored.signing_secret)], by_url_secret[sign(URL, "old")]
    assert verifies(legacy, secret=stored.signing_secret)
    assert "webhook-signature" not in orphan.headers  # no account, no key: the contract's header alone


# --------------------------------------------------------------------- the documented verifiers


def doc_block(language: str) -> str:
    text = (ROOT / "docs" / "webhooks.md").read_text()
    section = text.split("## Verifying the body", 1)[1]
    return re.search(rf"```{language}\n(.*?)```", section, re.S).group(1)  # type: ignore[union-attr]


async def real_callback(hooks: WebhookSender, wire: Wire) -> Sent:
    await hooks.schedule(finished("task-doc"), ACCOUNT)
    await hooks.deliver_due()
    return wire.sent[0]


async def test_the_documented_python_verifier(hooks: WebhookSender, wire: Wire) -> None:
    namespace: dict[str, Any] = {}
    exec(doc_block("python"), namespace)
    verify = namespace["verify_webhook"]
    sent = await real_callback(hooks, wire)  # the real clock: the verifier checks the timestamp
    headers = {k.lower(): v for k, v in sent.headers.items()}
    assert verify(sent.body, headers, SECRET)
    assert not verify(sent.body + b"x", headers, SECRET)
    assert not verify(sent.body, {**headers, "webhook-timestamp": str(int(headers["webhook-timestamp"]) - 301)}, SECRET)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
async def test_the_documented_node_verifier(hooks: WebhookSender, wire: Wire) -> None:
    sent = await real_callback(hooks, wire)
    headers = {k.lower(): v for k, v in sent.headers.items()}
    runner = doc_block("js") + (
        "\nconst [body, headers, secret] = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));"
        "\nprocess.stdout.write(String(verifyWebhook(Buffer.from(body, 'base64'), headers, secret)));\n"
    )

    def node(body: bytes) -> str:
        stdin = json.dumps([base64.b64encode(body).decode(), headers, SECRET])
        return subprocess.run(["node", "-e", runner], input=stdin, capture_output=True, text=True, check=True, timeout=30).stdout

    assert node(sent.body) == "true"
    assert node(sent.body.replace(b"completed", b"failed")) == "false"
