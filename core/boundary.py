"""The error boundary of every call that crosses a deployment handle.

An exception raised inside a Ray replica reaches the caller wrapped: Ray
builds a ``RayTaskError`` that also subclasses the original class (so
``isinstance`` still works) but whose ``str()`` is the whole remote traceback,
with the replica's process title, pid, actor id, ANSI colours and the server's
file paths. Nothing of that may reach a client. :func:`unwrap` gives back the
original exception (a call that went through several deployments is wrapped
once per hop); :func:`public_message` is the one-line text a client may read.
The edge (``serve_app.responses``) and the job runner (``core.errors.task_error``)
both go through here, so no route handles Ray's wrapper on its own.
"""

from __future__ import annotations

import logging
import re

log = logging.getLogger("mediatrans.boundary")

try:
    from ray.exceptions import ActorUnavailableError, RayActorError, RayTaskError, WorkerCrashedError
except ImportError:  # pragma: no cover - ray is a hard dependency

    class RayTaskError(Exception):  # type: ignore[no-redef]
        cause: BaseException | None = None

    RayActorError = ActorUnavailableError = WorkerCrashedError = RayTaskError  # type: ignore[misc,assignment]

#: The replica that was called died or cannot be reached: the caller may retry.
REPLICA_GONE: tuple[type[BaseException], ...] = (RayActorError, ActorUnavailableError, WorkerCrashedError)

MAX_MESSAGE_CHARS = 300

# What a message must never carry: tracebacks, source locations, Ray's process
# and actor descriptions, terminal colours, and absolute server paths.
_INTERNALS = re.compile(
    r"Traceback|File \"|site-packages|dist-packages|ray::|\bpid=|actor_id|ActorID|\x1b\[|"
    r"(?<![\w.])/(?:usr|root|home|work|tmp|opt|var|srv|proc|etc|lib|app|mnt|data)/",
)
_SPACES = re.compile(r"\s+")


def unwrap(exc: BaseException) -> BaseException:
    """The exception first raised behind any number of remote-call wrappers."""
    seen = 0
    while isinstance(exc, RayTaskError) and seen < 16:
        cause = getattr(exc, "cause", None)
        if not isinstance(cause, BaseException) or cause is exc:
            break
        exc, seen = cause, seen + 1
    return exc


def public_message(text: str, fallback: str) -> str:
    """``text`` as one safe line for a client, or ``fallback`` when it would show the server's insides."""
    lines = [line for line in str(text).splitlines() if line.strip()]
    line = _SPACES.sub(" ", lines[0]).strip() if lines else ""
    if not line or _INTERNALS.search(text):
        return fallback
    if len(line) > MAX_MESSAGE_CHARS:
        line = line[: MAX_MESSAGE_CHARS - 1].rstrip() + "…"
    return line


def log_remote(exc: BaseException, original: BaseException) -> None:
    """The remote traceback goes to the log (under the request id, added by the log filter), never to the client."""
    if exc is not original:
        log.info("a replica raised %s: %s", type(original).__name__, exc)
