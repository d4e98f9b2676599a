"""Errors re-raised through a deployment handle reach the client as the project's one-line message.

Ray re-raises a replica's exception as a ``RayTaskError`` that also subclasses
the original class and whose text is the whole remote traceback. These tests
build exactly that wrapper (Ray's own class, no cluster needed) and send it
through the edge's exception handler and the job runner's error mapping.
"""

from __future__ import annotations

import re

import httpx
import pytest
from ray.exceptions import ActorDiedError, RayTaskError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.routing import Route

from core.boundary import public_message, unwrap
from core.errors import ApiError, ErrorGroup, ErrorKind, task_error
from engines.errors import InvalidInput, NoSpeechFound, SampleDuration, UnsupportedLanguage
from serve_app.middleware import RequestContextMiddleware
from serve_app.responses import HANDLED, handle_exception, to_api_error

#: What an error body must never contain: Ray's process/actor text, tracebacks, paths, pids, colours.
LEAKS = re.compile(r"ray::|Traceback|File \"|site-packages|pid=|actor_id|\x1b|/usr/|/root/|/work/")

REMOTE_TRACEBACK = (
    "\x1b[36mray::ServeReplica:mediatrans:VoiceCloner.handle_request_with_rejection()\x1b[39m "
    "(pid=4242, ip=10.0.0.7, actor_id=abcdef0123, repr=<ray.serve._private.replica.ServeReplica object>)\n"
    "Traceback (most recent call last):\n"
    '  File "/work/main/.venv/lib/python3.11/site-packages/ray/serve/_private/replica.py", line 1, in call\n'
    '  File "/work/main/deployments/engines/voice/sample.py", line 88, in check\n'
)


def remote(cause: BaseException, where: str = "VoiceCloner.prepare") -> RayTaskError:
    """The exception a caller sees when a replica raised ``cause``."""
    error = RayTaskError(where, REMOTE_TRACEBACK + repr(cause), cause, proctitle="ray::ServeReplica", pid=4242, ip="10.0.0.7")
    return error.as_instanceof_cause()


def test_the_wrapper_leaks_when_printed() -> None:
    """The premise: the wrapper passes isinstance checks, and its text is the remote traceback."""
    wrapped = remote(SampleDuration("The sample is 5.0 s long; it must be 10 to 60 s."))
    assert isinstance(wrapped, SampleDuration)
    assert LEAKS.search(str(wrapped))


@pytest.mark.parametrize(
    ("cause", "kind"),
    [
        (SampleDuration("The sample is 5.0 s long; it must be 10 to 60 s."), ErrorKind.AUDIO_DURATION),
        (NoSpeechFound("No speech was found in the sample."), ErrorKind.NO_SPEECH),
        (UnsupportedLanguage("Translation en → xx is not available."), ErrorKind.UNSUPPORTED_LANGUAGE),
        (ApiError(ErrorKind.INVALID_PARAMETER, "max_length must be at least 1."), ErrorKind.INVALID_PARAMETER),
    ],
)
def test_the_edge_answers_the_original_message(cause: Exception, kind: ErrorKind) -> None:
    error = to_api_error(remote(cause))
    assert error.kind is kind
    assert error.message == (cause.message if isinstance(cause, ApiError) else str(cause))
    assert not LEAKS.search(error.message)


def test_nested_wrappers_are_unwrapped_to_the_first_cause() -> None:
    cause = UnsupportedLanguage("Translation en → xx is not available.")
    twice = remote(remote(cause, "Translator.translate"), "Localizer.localize")
    assert unwrap(twice) is cause
    assert to_api_error(twice).message == str(cause)


def test_an_unexpected_remote_exception_is_an_internal_error_without_detail() -> None:
    error = to_api_error(remote(KeyError("/work/main/models/kokoro/voices.bin")))
    assert error.kind is ErrorKind.INTERNAL
    assert not LEAKS.search(error.message)


def test_a_dead_replica_is_unavailable_and_retryable() -> None:
    error = to_api_error(ActorDiedError())
    assert error.kind is ErrorKind.UNAVAILABLE
    assert "Retry-After" in error.headers


def test_an_engine_message_that_shows_internals_gets_the_kinds_own_message() -> None:
    leaky = InvalidInput('ffmpeg failed: File "/usr/lib/x.py", line 3\nTraceback (most recent call last):')
    error = to_api_error(remote(leaky))
    assert error.kind is ErrorKind.INVALID_PARAMETER
    assert error.message == "Invalid parameter."


def test_task_errors_carry_the_original_message() -> None:
    error = task_error(remote(NoSpeechFound("No speech was found in the sample.")), ErrorGroup.VOICE)
    assert error == {"code": "1009", "message": "No speech was found in the sample."}
    internal = task_error(remote(ZeroDivisionError("division by zero")))
    assert internal["code"] == "INTERNAL_ERROR" and not LEAKS.search(internal["message"])


@pytest.mark.parametrize(
    "text",
    ["a\nb", "x" * 1000, "\x1b[31mred\x1b[0m", "see /root/.cache/x", "pid=12 failed", 'File "a.py", line 1'],
)
def test_public_messages_are_one_short_safe_line(text: str) -> None:
    message = public_message(text, "fallback")
    assert "\n" not in message and len(message) <= 300 and not LEAKS.search(message)


def test_urls_and_api_paths_are_not_taken_for_server_paths() -> None:
    text = "video_url: https://example.com/tmp/a.mp4 is not reachable; see /v1/video/translate."
    assert public_message(text, "fallback") == text


async def test_an_error_raised_through_a_handle_leaves_as_the_contract_body() -> None:
    async def clone(request: Request) -> None:
        raise remote(SampleDuration("The sample is 5.0 s long; it must be 10 to 60 s."))

    app = Starlette(
        routes=[Route("/v1/voice/clone", clone, methods=["POST"])],
        exception_handlers={cls: handle_exception for cls in (Exception, HTTPException, *HANDLED)},
    )
    app.add_middleware(RequestContextMiddleware)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        response = await client.post("/v1/voice/clone")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == 1007
    assert body["message"] == "The sample is 5.0 s long; it must be 10 to 60 s."
    assert not LEAKS.search(response.text)
