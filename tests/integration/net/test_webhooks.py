"""WebhookSender over real Redis, POSTing to a real loopback receiver."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import random
import time

import pytest
from redis.asyncio import Redis

from core import keys
from core.accounts import Account
from core.tasks import Task, TaskState
from core.webhooks import WebhookSender
from engines.net import UrlPolicy
from tests.integration.net.conftest import Resolver
from tests.integration.net.loopback import Hit, LoopbackServer
from tests.support.services import free_port

ANY_PORT = frozenset(range(1, 65536))  # loopback servers listen on free ports
LOOPBACK_OK = UrlPolicy(allow_private=True, allowed_ports=ANY_PORT)  # only because the receiver lives on 127.0.0.1
SECRET = "whsec-0123456789abcdef"
ACCOUNT = Account(id="acct_hooks", name="hooks", created_at=0.0, signing_secret=SECRET)
RESULT = {"subtitle_url": "https://api.example.com/v1/files/t/a.srt?expires=1&sig=x", "duration": 61.5, "char_count": 812}


def finished(task_id: str, url: str, status: TaskState = TaskState.COMPLETED) -> Task:
    error = {"code": "NO_AUDIO_TRACK", "message": "The video has no audio track."} if status is TaskState.FAILED else None
    return Task(
        task_id=task_id,
        account_id=ACCOUNT.id,
        status=status,
        created_at=time.time(),
        params={"callback_url": url},
        result=RESULT if status is TaskState.COMPLETED else None,
        error=error,
    )


def receiver_verifies(hit: Hit, callback_url: str) -> bool:
    """What a customer's receiver does: HMAC-SHA256 over the callback URL string with the secret."""
    expected = "sha256=" + hmac.new(SECRET.encode(), callback_url.encode(), hashlib.sha256).hexdigest()
    return hmac.compare_digest(hit.headers["x-signature"], expected)


def sender(redis: Redis, policy: UrlPolicy = LOOPBACK_OK, **options: float) -> WebhookSender:
    return WebhookSender(redis, policy, timeout_s=2, rng=random.Random(7), **options)  # type: ignore[arg-type]


async def until_final(hooks: WebhookSender, task_id: str, deadline_s: float = 5) -> dict[str, object]:
    """Run deliver_due on the real clock until the delivery is no longer pending."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        await hooks.deliver_due()
        record = await hooks.delivery(task_id)
        if record["state"] != "pending":
            return record
        await asyncio.sleep(0.02)
    raise AssertionError(f"still pending: {await hooks.delivery(task_id)}")


async def test_completion_is_posted_signed_and_recorded(redis_client: Redis, server: LoopbackServer) -> None:
    hooks = sender(redis_client)
    url = server.url("/hook/done?ref=42")
    delivery_id = await hooks.schedule(finished("task-a", url), ACCOUNT)
    assert await hooks.deliver_due() == 1
    [hit] = server.hits
    assert (hit.method, hit.path) == ("POST", "/hook/done?ref=42")
    assert hit.headers["content-type"] == "application/json"
    assert receiver_verifies(hit, url)
    assert not receiver_verifies(hit, server.url("/hook/done?ref=43"))
    assert (hit.headers["x-webhook-id"], hit.headers["x-webhook-attempt"]) == (delivery_id, "1")
    assert json.loads(hit.body) == {"task_id": "task-a", "status": "completed", "result": RESULT}
    record = await hooks.delivery("task-a")
    assert (record["state"], record["attempts"], record["last_status"], record["next_at"]) == ("delivered", 1, 200, None)
    assert "signature" not in record
    assert await hooks.deliver_due(time.time() + 10_000) == 0  # nothing left to send
    assert 6.9 * 86400 < await redis_client.ttl(keys.webhook_delivery("task-a")) <= 7 * 86400


async def test_failure_payload(redis_client: Redis, server: LoopbackServer) -> None:
    hooks = sender(redis_client)
    await hooks.schedule(finished("task-f", server.url("/hook/f"), TaskState.FAILED), ACCOUNT)
    await hooks.deliver_due()
    body = json.loads(server.hits[0].body)
    assert body == {
        "task_id": "task-f",
        "status": "failed",
        "error": {"code": "NO_AUDIO_TRACK", "message": "The video has no audio track."},
    }


async def test_failures_are_retried_with_backoff_then_succeed(redis_client: Redis, server: LoopbackServer) -> None:
    server.program("/hook/flaky", 500, 503)
    hooks = sender(redis_client, base_delay_s=10, max_delay_s=100)
    await hooks.schedule(finished("task-b", server.url("/hook/flaky")), ACCOUNT)
    now = time.time()
    assert await hooks.deliver_due(now) == 1
    first = await hooks.delivery("task-b")
    assert (first["state"], first["attempts"], first["last_status"], first["last_error"]) == ("pending", 1, 500, "HTTP 500")
    assert now + 8 <= first["next_at"] <= now + 12  # 10 s ± 20 %
    assert await hooks.deliver_due(now + 7.9) == 0  # not due yet
    assert await hooks.deliver_due(now + 12) == 1
    second = await hooks.delivery("task-b")
    assert (second["attempts"], second["last_status"]) == (2, 503)
    assert now + 12 + 16 <= second["next_at"] <= now + 12 + 24  # doubled
    assert await hooks.deliver_due(now + 40) == 1
    final = await hooks.delivery("task-b")
    assert (final["state"], final["attempts"], final["last_status"], final["last_error"]) == ("delivered", 3, 200, None)
    assert [h.headers["x-webhook-attempt"] for h in server.hits] == ["1", "2", "3"]
    assert len({h.headers["x-webhook-id"] for h in server.hits}) == 1
    assert len({h.body for h in server.hits}) == 1  # every attempt sends the same bytes


async def test_gives_up_after_max_attempts(redis_client: Redis, server: LoopbackServer) -> None:
    server.program("/hook/down", *[500] * 10)
    hooks = sender(redis_client, max_attempts=3, base_delay_s=0.02, max_delay_s=0.05)
    await hooks.schedule(finished("task-c", server.url("/hook/down")), ACCOUNT)
    record = await until_final(hooks, "task-c")
    assert (record["state"], record["attempts"], record["last_status"]) == ("gave_up", 3, 500)
    assert await hooks.deliver_due(time.time() + 10_000) == 0
    assert len(server.hits) == 3
    assert await redis_client.zscore(keys.webhook_due(), "task-c") is None


async def test_unreachable_receiver_is_a_failed_attempt(redis_client: Redis) -> None:
    hooks = sender(redis_client, max_attempts=2, base_delay_s=0.01, max_delay_s=0.02)
    await hooks.schedule(finished("task-d", f"http://127.0.0.1:{free_port()}/hook"), ACCOUNT)
    record = await until_final(hooks, "task-d")
    assert (record["state"], record["attempts"], record["last_status"]) == ("gave_up", 2, None)
    assert "ConnectError" in str(record["last_error"])


async def test_two_senders_never_send_one_delivery_twice(redis_client: Redis, redis_url: str, server: LoopbackServer) -> None:
    other = Redis.from_url(redis_url, decode_responses=True)
    try:
        a, b = sender(redis_client), sender(other)
        for i in range(8):
            await a.schedule(finished(f"task-{i}", server.url(f"/hook/{i}")), ACCOUNT)
        made = await asyncio.gather(a.deliver_due(), b.deliver_due(), a.deliver_due(), b.deliver_due())
    finally:
        await other.aclose()
    assert sum(made) == 8
    assert sorted(h.path for h in server.hits) == sorted(f"/hook/{i}" for i in range(8))


async def test_private_callbacks_are_refused(redis_client: Redis, server: LoopbackServer, fake_dns: Resolver) -> None:
    hooks = sender(redis_client, policy=UrlPolicy(allowed_ports=ANY_PORT))
    await hooks.schedule(finished("task-lit", server.url("/hook/x")), ACCOUNT)
    record = await hooks.delivery("task-lit")
    assert (record["state"], record["attempts"]) == ("gave_up", 0)  # refused outright, never attempted
    assert "not public (loopback)" in str(record["last_error"])
    fake_dns({"hooks.test": ["127.0.0.1"]})  # a name: only resolution at delivery time can tell
    await hooks.schedule(finished("task-dns", f"http://hooks.test:{server.port}/hook/y"), ACCOUNT)
    assert await hooks.deliver_due() == 1
    record = await hooks.delivery("task-dns")
    assert (record["state"], record["attempts"], record["last_status"]) == ("pending", 1, None)
    assert "resolves to an address that is not public" in str(record["last_error"])
    assert server.hits == []


async def test_scheduling_rules_and_stale_lease_recovery(redis_client: Redis, server: LoopbackServer) -> None:
    hooks = sender(redis_client)
    assert await hooks.schedule(finished("task-none", ""), ACCOUNT) is None
    running = finished("task-run", server.url("/hook/r"))
    running.status = TaskState.PROCESSING
    with pytest.raises(ValueError, match="processing"):
        await hooks.schedule(running, ACCOUNT)
    first = await hooks.schedule(finished("task-e", server.url("/hook/e")), ACCOUNT)
    assert await hooks.schedule(finished("task-e", server.url("/hook/other")), ACCOUNT) == first
    # A sender that claimed the delivery and died: its lease is in the past.
    await redis_client.zrem(keys.webhook_due(), "task-e")
    await redis_client.zadd(keys.webhook_sending(), {"task-e": time.time() - 1})
    assert await hooks.deliver_due() == 1
    assert [h.path for h in server.hits] == ["/hook/e"]
    assert await hooks.delivery("task-missing") == {}
