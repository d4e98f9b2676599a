"""Callback signatures, callback payloads, retry delays and download-link signatures."""

from __future__ import annotations

import base64
import hashlib
import hmac
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.files import LinkExpired, LinkForged, LocalFileStore, object_key
from core.tasks import Task, TaskState
from core.webhooks import backoff_delay, completion_payload, failure_payload, payload_for, sign

SECRET = b"s" * 32


def task(status: TaskState, **fields: object) -> Task:
    return Task(task_id="t1", account_id="acct_1", status=status, created_at=1.0, params={}, **fields)  # type: ignore[arg-type]


def test_sign_matches_the_published_hmac_sha256_vector() -> None:
    # RFC-style known answer: HMAC-SHA256(key="key", "The quick brown fox jumps over the lazy dog").
    expected = "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"
    assert sign("The quick brown fox jumps over the lazy dog", "key") == f"sha256={expected}"


def test_sign_covers_the_exact_url_string_and_the_secret() -> None:
    base = sign("https://hooks.example.com/cb?x=1", "secret")
    assert base.startswith("sha256=") and base[7:] == base[7:].lower() and len(base) == 7 + 64
    assert sign("https://hooks.example.com/cb?x=1", "secret") == base
    assert sign("https://hooks.example.com/cb?x=1/", "secret") != base
    assert sign("https://hooks.example.com/cb?x=1", "secret2") != base


def test_completion_payload_carries_the_result() -> None:
    result = {"subtitle_url": "https://x/v1/files/t1/a.srt?expires=1&sig=s", "duration": 12.5, "char_count": 340}
    body = completion_payload(task(TaskState.COMPLETED, result=result))
    assert body == {"task_id": "t1", "status": "completed", "result": result}


@pytest.mark.parametrize(
    ("status", "error", "expected"),
    [
        (TaskState.FAILED, {"code": "NO_AUDIO_TRACK", "message": "No audio."}, ("failed", "NO_AUDIO_TRACK", "No audio.")),
        (TaskState.EXPIRED, {"code": "TASK_EXPIRED", "message": "Too old."}, ("expired", "TASK_EXPIRED", "Too old.")),
        (TaskState.FAILED, None, ("failed", "INTERNAL_ERROR", "The task failed.")),
    ],
)
def test_failure_payload(status: TaskState, error: dict[str, str] | None, expected: tuple[str, str, str]) -> None:
    body = failure_payload(task(status, error=error))
    assert (body["status"], body["error"]["code"], body["error"]["message"]) == expected
    assert set(body) == {"task_id", "status", "error"}
    assert payload_for(task(status, error=error)) == body


@given(st.integers(1, 40), st.floats(0.01, 10), st.floats(1, 1000), st.integers(0, 2**32))
def test_backoff_doubles_within_jitter_and_never_exceeds_the_cap(attempt: int, base: float, cap: float, seed: int) -> None:
    delay = backoff_delay(attempt, base, cap, random.Random(seed))
    nominal = min(cap, base * 2 ** (attempt - 1))
    assert 0.8 * nominal - 1e-9 <= delay <= min(cap, 1.2 * nominal) + 1e-9


def test_backoff_default_schedule() -> None:
    rng = random.Random(1)
    nominal = [min(600, 2 * 2 ** (n - 1)) for n in range(1, 11)]
    assert nominal == [2, 4, 8, 16, 32, 64, 128, 256, 512, 600]
    assert all(0.8 * n <= backoff_delay(i + 1, 2, 600, rng) <= 1.2 * n for i, n in enumerate(nominal))


@pytest.fixture
def store(tmp_path: Path) -> LocalFileStore:
    return LocalFileStore(tmp_path, "https://api.example.com/", SECRET)


def test_link_signature_is_hmac_of_key_and_expiry(store: LocalFileStore) -> None:
    url = store.url("t1/subs.srt", 2_000_000_000.7)
    mac = hmac.new(SECRET, b"t1/subs.srt\n2000000000", hashlib.sha256).digest()
    sig = base64.urlsafe_b64encode(mac).rstrip(b"=").decode()
    assert url == f"https://api.example.com/v1/files/t1/subs.srt?expires=2000000000&sig={sig}"
    store.verify("t1/subs.srt", "2000000000", sig, now=1_999_999_999)


@pytest.mark.parametrize(
    ("key", "expires", "mutate"),
    [
        ("t1/other.srt", "2000000000", None),  # signature of another file
        ("t1/subs.srt", "2000000001", None),  # expiry pushed forward
        ("t1/subs.srt", "2000000000", "flip"),  # altered signature
        ("t1/subs.srt", "2000000000", "empty"),
        ("t1/subs.srt", "20e8", None),
        ("../t1/subs.srt", "2000000000", None),
        ("t1/sub s.srt", "2000000000", None),
    ],
)
def test_altered_links_are_forged(store: LocalFileStore, key: str, expires: str, mutate: str | None) -> None:
    sig = store.signature("t1/subs.srt", 2_000_000_000)
    if mutate == "flip":
        sig = ("A" if sig[0] != "A" else "B") + sig[1:]
    elif mutate == "empty":
        sig = ""
    with pytest.raises(LinkForged):
        store.verify(key, expires, sig, now=1_000)


def test_expiry_is_checked_after_authenticity(store: LocalFileStore) -> None:
    sig = store.signature("t1/subs.srt", 1_000)
    with pytest.raises(LinkExpired):
        store.verify("t1/subs.srt", "1000", sig, now=1_000)
    with pytest.raises(LinkForged):  # a forged link is never reported as merely expired
        store.verify("t1/subs.srt", "1000", sig[:-1] + ("A" if sig[-1] != "A" else "B"), now=5_000)


def test_links_expire_24h_after_creation_whenever_issued(store: LocalFileStore) -> None:
    assert store.expires_for(1_000.0) == 1_000 + 24 * 3600


def test_stores_with_other_secrets_reject_each_others_links(tmp_path: Path, store: LocalFileStore) -> None:
    other = LocalFileStore(tmp_path, "https://api.example.com", b"t" * 32)
    with pytest.raises(LinkForged):
        other.verify("t1/subs.srt", "2000000000", store.signature("t1/subs.srt", 2_000_000_000), now=0)
    with pytest.raises(ValueError, match="16 bytes"):
        LocalFileStore(tmp_path, "https://x", b"short")


@pytest.mark.parametrize("name", ["../x", ".hidden", "a/b", "", "x" * 200, "sp ace", "ü.srt"])
def test_object_key_refuses_unsafe_names(name: str) -> None:
    with pytest.raises(ValueError):
        object_key("task1", name)
    assert object_key("task1", "subs.en.srt") == "task1/subs.en.srt"
