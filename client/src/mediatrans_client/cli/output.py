"""What the command line prints: results for people or as JSON, errors with a hint and an exit code."""

from __future__ import annotations

import json
import sys
from typing import Any

from pydantic import BaseModel
from rich.console import Console

from mediatrans_client import errors as e

# Exit codes, one per error class (README "Command line"); click's usage errors exit 2.
EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_AUTH = 3
EXIT_NOT_FOUND = 4
EXIT_INVALID = 5
EXIT_LIMITED = 6
EXIT_SERVER = 7
EXIT_CONNECTION = 8
EXIT_TASK_FAILED = 9
EXIT_TIMEOUT = 10
EXIT_PARTIAL = 11  # `game localize`: some target languages written, others refused
EXIT_BROKEN_PIPE = 141  # the reader of stdout went away (as a shell reports SIGPIPE)

_EXITS: tuple[tuple[type[e.MediatransError], int, str], ...] = (
    (e.AuthenticationError, EXIT_AUTH, "Check the token: --token, MEDIATRANS_TOKEN or `mediatrans configure`."),
    (e.PermissionDeniedError, EXIT_AUTH, "The token's account may not use this; ask its administrator for the scope."),
    (e.NotFoundError, EXIT_NOT_FOUND, "Check the id; tasks and voices are visible only to the account that made them."),
    (e.LinkExpiredError, EXIT_NOT_FOUND, "Download links live 24 h: submit the task again."),
    (e.QuotaExceededError, EXIT_LIMITED, "The account's quota is spent; `retry_after` says when it renews, if known."),
    (e.RateLimitedError, EXIT_LIMITED, "Too many requests even after retries; slow down or try again later."),
    (e.ServiceBusyError, EXIT_SERVER, "The service stayed busy through every retry; try again later."),
    (e.ServerError, EXIT_SERVER, "A server fault; quote the request_id when you report it."),
    (e.ConnectionFailedError, EXIT_CONNECTION, "Check --base-url / MEDIATRANS_BASE_URL and the network."),
    (e.TaskFailedError, EXIT_TASK_FAILED, "The task failed; its error code says why (docs/errors.md)."),
    (e.WaitTimeoutError, EXIT_TIMEOUT, "Still running: follow it with `mediatrans video status ID --wait`."),
    (e.ConflictError, EXIT_INVALID, "The request conflicts with the resource's state."),
    (e.InvalidRequestError, EXIT_INVALID, "Fix the request; `details` names the fields."),
)

stdout = Console(soft_wrap=True)
stderr = Console(stderr=True, soft_wrap=True)


def exit_code_for(exc: e.MediatransError) -> int:
    for cls, code, _hint in _EXITS:
        if isinstance(exc, cls):
            return code
    return EXIT_FAILURE


#: The service's message for a path no endpoint answers (code 2004/2005 like an unknown id, another cause).
NO_ENDPOINT = "No such endpoint."
NO_ENDPOINT_HINT = "No endpoint at this URL: check --base-url (the server's root, e.g. http://127.0.0.1:8000; /v1 optional)."


def hint_for(exc: e.MediatransError) -> str:
    if isinstance(exc, e.NotFoundError) and (exc.message or "").startswith(NO_ENDPOINT):
        return NO_ENDPOINT_HINT
    for cls, _code, hint in _EXITS:
        if isinstance(exc, cls):
            return hint
    return ""


def error_record(exc: e.MediatransError) -> dict[str, Any]:
    record: dict[str, Any] = {
        "type": type(exc).__name__,
        "code": exc.code,
        "message": exc.message,
        "request_id": exc.request_id,
        "status": exc.status,
        "exit_code": exit_code_for(exc),
    }
    if exc.details:
        record["details"] = exc.details
    retry_after = getattr(exc, "retry_after", None)
    if retry_after is not None:
        record["retry_after"] = retry_after
    if exc.rate_limit is not None:
        limit = exc.rate_limit
        record["rate_limit"] = {"limit": limit.limit, "remaining": limit.remaining, "reset": limit.reset}
    task = getattr(exc, "task", None)
    if isinstance(task, BaseModel):
        record["task"] = task.model_dump(mode="json", exclude_none=True)
    return record


def report_error(exc: e.MediatransError, as_json: bool) -> int:
    """Print ``exc`` to stderr (one JSON object with ``--json``); return the exit code."""
    code = exit_code_for(exc)
    if as_json:
        sys.stderr.write(json.dumps({"error": error_record(exc)}, ensure_ascii=False) + "\n")
        return code
    head = f"error: {exc.message}"
    facts = [f"code {exc.code}" if exc.code is not None else "", f"HTTP {exc.status}" if exc.status else ""]
    facts.append(f"request_id {exc.request_id}" if exc.request_id else "")
    retry_after = getattr(exc, "retry_after", None)
    facts.append(f"retry after {retry_after:g} s" if retry_after is not None else "")
    stderr.print(head, markup=False, highlight=False)
    described = ", ".join(f for f in facts if f)
    if described:
        stderr.print(f"  ({described})", markup=False, highlight=False)
    for detail in exc.details[:10]:
        stderr.print(f"  - {json.dumps(detail, ensure_ascii=False)}", markup=False, highlight=False)
    hint = hint_for(exc)
    if hint:
        stderr.print(f"  hint: {hint}", markup=False, highlight=False)
    return code


def fail(message: str, code: int = EXIT_FAILURE, as_json: bool = False) -> int:
    """Print a local error (bad file, bad config) and return ``code``."""
    if as_json:
        sys.stderr.write(json.dumps({"error": {"type": "LocalError", "message": message, "exit_code": code}}) + "\n")
    else:
        stderr.print(f"error: {message}", markup=False, highlight=False)
    return code


def emit_json(value: Any) -> None:
    """One JSON document on stdout (models dumped without unset fields)."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", exclude_none=True)
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")
    sys.stdout.flush()


def say(message: str) -> None:
    stdout.print(message, markup=False, highlight=False)


def note(message: str) -> None:
    """Human status lines go to stderr, so stdout stays the result."""
    stderr.print(message, markup=False, highlight=False)
