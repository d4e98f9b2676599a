"""What no response of the service may show a client: the server's insides.

Used by the integration suite's HTTP client on every response it reads, so
every error path the suite drives (and every failed task's ``error`` object)
is checked, not only the ones a test names.
"""

from __future__ import annotations

import json
import re

import httpx

#: Ray's process and actor descriptions, tracebacks, source paths, pids, actor ids, terminal colours.
LEAKS = re.compile(
    r"ray::|Traceback \(most recent|File \"|site-packages|dist-packages|\bpid=|actor_id|\x1b\[|"
    r"(?<![\w.])/(?:usr|root|home|work|tmp|opt|var)/"
)


def leaked(text: str) -> str | None:
    """The first leaking fragment of ``text``, or None."""
    match = LEAKS.search(text)
    return match.group(0) if match else None


def assert_no_internals(response: httpx.Response) -> None:
    """Fail when an error body, or the ``error`` object of a task, shows server internals."""
    if "json" not in response.headers.get("content-type", ""):
        return
    response.read()
    try:
        body = response.json()
    except (ValueError, json.JSONDecodeError):
        return
    if response.status_code >= 400:
        texts = [response.text]
    elif isinstance(body, dict) and isinstance(body.get("error"), dict):
        texts = [json.dumps(body["error"], ensure_ascii=False)]
    else:
        return
    for text in texts:
        fragment = leaked(text)
        assert fragment is None, f"{response.request.method} {response.request.url.path} leaked {fragment!r}: {text[:400]}"
