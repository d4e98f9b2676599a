"""What a task callback says and how it is signed (contract section 6).

The contract fixes the signature: ``X-Signature: sha256=<hex HMAC-SHA256 of
the callback URL string, keyed with the account's signing secret>``. It
proves that the request comes from this service *for that URL*; it does not
cover the body, so a receiver should treat the body as a hint and read the
task (``GET /v1/video/task/{id}``) before acting on money or data.

Beside it, every attempt carries the Standard Webhooks headers (an extension,
docs/webhooks.md), which do sign the body: ``webhook-id`` (the delivery id),
``webhook-timestamp`` (Unix seconds of the attempt) and ``webhook-signature:
v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">``, keyed with the same
signing secret as UTF-8 bytes. See :func:`standard_headers`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import random
from typing import Any

from core.errors import ErrorGroup, ErrorKind, resolve
from core.specs.voice import VoiceJobSpec
from core.tasks import Task, TaskState, iso


def sign(callback_url: str, secret: str) -> str:
    """``sha256=<lowercase hex HMAC-SHA256 of callback_url keyed with secret>`` (contract section 6)."""
    digest = hmac.new(secret.encode(), callback_url.encode(), hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def standard_signature(webhook_id: str, timestamp: int, body: bytes, secret: str) -> str:
    """``v1,<base64 HMAC-SHA256 of "{webhook_id}.{timestamp}.{body}">`` keyed with ``secret`` as UTF-8 bytes."""
    message = f"{webhook_id}.{timestamp}.".encode() + body
    digest = hmac.new(secret.encode(), message, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def standard_headers(webhook_id: str, timestamp: int, body: bytes, secret: str) -> dict[str, str]:
    """The Standard Webhooks headers of one attempt that sends exactly ``body``."""
    return {
        "webhook-id": webhook_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": standard_signature(webhook_id, timestamp, body, secret),
    }


def completion_payload(task: Task) -> dict[str, Any]:
    """Body for a completed task: its result (links, ``duration``, ``char_count``...)."""
    return {"task_id": task.task_id, "status": TaskState.COMPLETED.value, "result": dict(task.result or {})}


def failure_payload(task: Task) -> dict[str, Any]:
    """Body for a failed or expired task: the same ``error`` object the task record shows."""
    error = task.error or {}
    status = task.status.value if task.status in (TaskState.FAILED, TaskState.EXPIRED) else TaskState.FAILED.value
    code = error.get("code", _code(ErrorGroup.VIDEO, ErrorKind.INTERNAL))
    return {
        "task_id": task.task_id,
        "status": status,
        "error": {"code": str(code), "message": str(error.get("message", "The task failed."))},
    }


def voice_payload(task: Task) -> dict[str, Any]:
    """Body of a voice training's callback (contract 6): the voice, ``ready`` with its score, or ``failed``."""
    if task.status is TaskState.COMPLETED:
        return dict(task.result or {})
    spec, error = VoiceJobSpec.model_validate(task.params), task.error or {}
    return {
        "voice_id": spec.voice_id,
        "voice_name": spec.voice_name,
        "lang": spec.lang,
        "status": "failed",
        "sample_duration": spec.sample_meta.duration_s,
        "created_at": iso(spec.created_at or task.created_at),
        "completed_at": iso(task.completed_at or task.created_at),
        "error": {"code": _voice_code(task), "message": str(error.get("message", "Clone training failed."))},
    }


def _voice_code(task: Task) -> str:
    """The voice table's code: an expired training is a failed one (3003), as the voice itself says."""
    failed = _code(ErrorGroup.VOICE, ErrorKind.CLONE_FAILED)
    return failed if task.status is TaskState.EXPIRED else str((task.error or {}).get("code", failed))


def _code(group: ErrorGroup, kind: ErrorKind) -> str:
    return str(resolve(group, kind)[1])


def payload_for(task: Task) -> dict[str, Any]:
    if task.kind == "voice":
        return voice_payload(task)
    return completion_payload(task) if task.status is TaskState.COMPLETED else failure_payload(task)


def backoff_delay(attempt: int, base_s: float, cap_s: float, rng: random.Random) -> float:
    """Seconds before retry after failed ``attempt`` (1-based): doubling, capped, ±20 % jitter.

    Jitter spreads the retries of many tasks that failed together (a receiver
    outage) so they do not all return in the same second.
    """
    delay = min(cap_s, base_s * 2 ** min(attempt - 1, 30))
    return min(cap_s, delay * rng.uniform(0.8, 1.2))
