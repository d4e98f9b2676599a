"""``mediatrans-admin account set-limits --cap``: stored on the account, shown, validated."""

from __future__ import annotations

import json

import pytest
import redis

from core import caps
from core.accounts import Account
from serve_app.cli import main


def admin(redis_url: str, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict | str]:
    code = main(["--redis-url", redis_url, *argv])
    out, err = capsys.readouterr()
    return code, json.loads(out) if code == 0 else err


def stored(sync_redis: redis.Redis, account_id: str) -> Account:
    return Account.from_redis(sync_redis.hgetall(f"mt:acct:{account_id}"))  # type: ignore[arg-type]


def test_caps_are_set_shown_lifted_and_reset(redis_url: str, sync_redis: redis.Redis, capsys: pytest.CaptureFixture[str]) -> None:
    sync_redis.flushdb()
    code, created = admin(redis_url, capsys, "account", "create", "acme", "--cap", "glossaries=3")
    assert code == 0 and isinstance(created, dict)
    assert created["caps"]["glossaries"] == 3 and created["caps"]["pending_tasks"] == caps.DEFAULTS["pending_tasks"]
    code, shown = admin(
        redis_url, capsys, "account", "set-limits", "acme", "--cap", "glossary_entries=500", "--cap", "output_bytes=unlimited"
    )
    assert code == 0 and isinstance(shown, dict)
    assert shown["caps"]["glossary_entries"] == 500 and shown["caps"]["output_bytes"] == "unlimited"
    account = stored(sync_redis, created["account_id"])
    assert account.caps == {"glossaries": 3, "glossary_entries": 500, "output_bytes": caps.UNLIMITED}
    assert caps.effective(account, "output_bytes") is None and caps.effective(account, "glossaries") == 3

    code, _ = admin(redis_url, capsys, "account", "set-limits", "acme", "--cap", "glossaries=default")
    assert code == 0 and stored(sync_redis, created["account_id"]).caps == {"glossary_entries": 500, "output_bytes": -1}
    code, show = admin(redis_url, capsys, "account", "show", "acme")
    assert code == 0 and isinstance(show, dict)
    assert show["caps"]["glossaries"] == 100
    assert show["stored"] == {
        "glossaries": 0,
        "glossary_total_bytes": 0,
        "memories": 0,
        "memory_total_bytes": 0,
        "pending_tasks": 0,
        "idempotency_records": 0,
        "idempotency_bytes": 0,
        "output_bytes": 0,
    }


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("volumes=3", "unknown cap 'volumes'"),
        ("glossaries=-1", "expected NAME=N, NAME=unlimited or NAME=default"),
        ("glossaries=lots", "expected NAME=N"),
        ("glossary_entries=6000", "glossary_entries is at most 5000"),
        ("glossary_entries=unlimited", "cannot be unlimited"),
    ],
)
def test_bad_caps_are_refused_and_nothing_changes(
    redis_url: str, sync_redis: redis.Redis, capsys: pytest.CaptureFixture[str], item: str, message: str
) -> None:
    sync_redis.flushdb()
    _, created = admin(redis_url, capsys, "account", "create", "acme")
    assert isinstance(created, dict)
    code, err = admin(redis_url, capsys, "account", "set-limits", "acme", "--cap", item)
    assert code == 2 and message in str(err)
    assert stored(sync_redis, created["account_id"]).caps == {}
