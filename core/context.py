"""Request id end to end: accepted or created at the edge, put in every log line."""

from __future__ import annotations

import contextvars
import logging
import re
import uuid

HEADER = "X-Request-ID"
_VALID = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")

request_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")


def accept_or_create(value: str | None) -> str:
    """The client's id when it is a sane token, else a fresh one."""
    if value and _VALID.match(value):
        return value
    return uuid.uuid4().hex


class RequestIdFilter(logging.Filter):
    """Adds ``record.request_id`` so every formatter can print it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id_var.get()
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
