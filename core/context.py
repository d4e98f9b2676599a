"""Request id end to end: accepted or created at the edge, put in every log line."""

from __future__ import annotations

import contextvars
import logging
import re
import uuid
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ray.serve.context import _RequestContext

HEADER = "X-Request-ID"
#: A given id is kept only when it is 1 to 128 characters of ``[A-Za-z0-9._:-]`` (docs/platform.md).
_VALID = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")

request_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")


def is_valid(value: str | None) -> bool:
    """Whether ``value`` may be used as a request id as given."""
    return value is not None and _VALID.fullmatch(value) is not None


def accept_or_create(value: str | None) -> str:
    """The client's id when it is a sane token, else a fresh one."""
    if value is not None and is_valid(value):
        return value
    return uuid.uuid4().hex


def current_request_id() -> str:
    """This request's id: set here at the edge or by a worker running a task, else the one Serve
    carried into this replica with the call (Serve passes it along every handle call)."""
    own = request_id_var.get()
    if own != "-":
        return own
    context = _serve_context()
    carried = context.request_id if context is not None else ""
    return carried if is_valid(carried) else "-"  # Serve's proxy passes any client header along


def adopt_request_id(request_id: str) -> contextvars.Token[str]:
    """Make ``request_id`` this context's id, here and in every Serve handle call made from it,
    so the replicas a task's job calls (ASR, Translator, TTS...) log the task's request id.
    Returns the token that resets this module's variable (Serve's is scoped by the asyncio task)."""
    token = request_id_var.set(request_id)
    try:
        from ray.serve.context import _set_request_context
    except ImportError:  # pragma: no cover - ray is a hard dependency
        return token
    _set_request_context(request_id=request_id)
    return token


def _serve_context() -> _RequestContext | None:
    try:
        from ray.serve.context import _serve_request_context
    except ImportError:  # pragma: no cover
        return None
    return _serve_request_context.get()


class RequestIdFilter(logging.Filter):
    """Adds ``record.request_id`` so every formatter can print it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = current_request_id()
        return True


def configure_logging(level: str = "INFO") -> None:
    """Log lines carry the request id; idempotent."""
    root = logging.getLogger("mediatrans")
    if any(isinstance(f, RequestIdFilter) for h in root.handlers for f in h.filters):
        return
    handler = logging.StreamHandler()
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s [request_id=%(request_id)s] %(message)s"))
    root.addHandler(handler)
    root.setLevel(level)
    root.propagate = False
