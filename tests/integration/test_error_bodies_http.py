"""No error body shows the server's insides, whichever deployment raised it.

Two views of the same boundary on the real Serve app:

* over HTTP, requests that make a replica raise (VoiceCloner, TTS, Grammar,
  Localizer and the Translator behind it) answer the contract code with the
  project's one-line message;
* every capability deployment (ASR, Translator, Localizer, Grammar, TTS,
  VoiceCloner, Diarizer) is called through its real handle with input it
  refuses or chokes on; the exception Ray re-raises here goes through the
  edge's handler, and the body it renders carries no traceback, path, pid,
  actor id or ANSI escape.

The integration client checks every JSON error body of the whole suite the same
way (tests.support.leaks); the LLM server's bodies are tested in tests/*/llm.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from typing import Any

import httpx
import numpy as np
import pytest
import soundfile

from core.errors import ErrorKind
from engines.localization import LocalizationJob
from engines.translation.base import TranslationRequest
from engines.tts.synthesizer import SpeechRequest
from serve_app.responses import render, to_api_error
from tests.integration.test_platform_http import assert_error
from tests.support.leaks import leaked

pytestmark = pytest.mark.serve

RATE = 24_000


def wav(seconds: float, *, tone: bool) -> bytes:
    t = np.arange(int(RATE * seconds)) / RATE
    signal = (0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32) if tone else np.zeros(len(t), np.float32)
    buffer = io.BytesIO()
    soundfile.write(buffer, signal, RATE, format="WAV", subtype="PCM_16")
    return buffer.getvalue()


def clone(client: httpx.Client, auth: dict[str, str], sample: bytes) -> httpx.Response:
    files = {"sample": ("sample.wav", sample, "application/octet-stream")}
    return client.post("/v1/voice/clone", data={"voice_name": "v", "lang": "en"}, files=files, headers=auth, timeout=300)


@pytest.mark.parametrize(
    ("sample", "code"),
    [
        pytest.param(lambda: wav(5, tone=False), 1007, id="5 s sample"),
        pytest.param(lambda: wav(15, tone=True), 1009, id="no speech"),
        pytest.param(lambda: b"this is not audio\n" * 200, 3002, id="not audio"),
    ],
)
def test_voice_cloner_refusals_keep_their_own_message(
    client: httpx.Client, auth: dict[str, str], sample: Callable[[], bytes], code: int
) -> None:
    body = assert_error(clone(client, auth, sample()), 415 if code == 3002 else 400, code)
    assert "\n" not in body["message"] and len(body["message"]) <= 300


def test_tts_refusals_from_the_replica(client: httpx.Client, auth: dict[str, str]) -> None:
    voices = client.get("/v1/tts/voices", params={"lang": "en"}, headers=auth).json()["voices"]
    english_only = next(v["voice_id"] for v in voices if v["languages"] == ["en"])
    response = client.post("/v1/tts", json={"text": "Konnichiwa.", "voice": english_only, "lang": "ja"}, headers=auth)
    assert_error(response, 400, 1001)
    assert_error(client.post("/v1/tts", json={"text": "…!?", "lang": "en"}, headers=auth), 400, 1001)


def test_grammar_and_game_refusals(client: httpx.Client, auth: dict[str, str]) -> None:
    assert_error(client.post("/v1/grammar", json={"text": "?!… ###"}, headers=auth), 422, 3002)
    game = {"text": "Open the door", "content_type": "ui", "source_lang": "en", "target_langs": ["es"]}
    assert_error(client.post("/v1/game/localization", json={**game, "glossary_id": "gl_0"}, headers=auth), 400, 1001)


def _call(handle: Any, method: str, *args: Any) -> BaseException:
    """The exception the handle call re-raises in this process (the test fails when none is raised)."""

    async def call() -> None:
        await getattr(handle, method).remote(*args)

    with pytest.raises(Exception) as raised:
        asyncio.run(call())
    return raised.value


def _handle(name: str) -> Any:
    from ray import serve

    return serve.get_deployment_handle(name, app_name="mediatrans")


def _speech(lang: str) -> SpeechRequest:
    return SpeechRequest(text="Hello there.", lang=lang)


CALLS: list[tuple[str, str, str, Callable[[], tuple[Any, ...]]]] = [
    ("ASR", "transcribe", "/v1/video/translate", lambda: (np.zeros(RATE, np.float32), "xx", 0.0)),
    ("ASR", "transcribe", "/v1/video/translate", lambda: ("not audio",)),
    ("Translator", "translate", "/v1/game/localization", lambda: (TranslationRequest(["Hi"], "en", "xx"),)),
    ("Localizer", "localize", "/v1/game/localization", lambda: (LocalizationJob("Hi", "en", ("xx",), "ui"),)),
    ("Grammar", "check", "/v1/grammar", lambda: ("not a request",)),
    ("TTS", "plan", "/v1/tts", lambda: (_speech("xx"),)),
    ("TTS", "plan", "/v1/tts", lambda: (None,)),
    ("VoiceCloner", "prepare", "/v1/voice/clone", lambda: (b"not audio at all" * 64, False)),
    ("VoiceCloner", "prepare", "/v1/voice/clone", lambda: (wav(5, tone=False), False)),
    ("Diarizer", "diarize", "/v1/video/translate", lambda: ("not audio",)),
]


@pytest.mark.parametrize(("deployment", "method", "path", "args"), CALLS, ids=[f"{c[0]}.{c[1]}-{i}" for i, c in enumerate(CALLS)])
def test_every_deployments_errors_render_without_internals(
    serve_base_url: str, deployment: str, method: str, path: str, args: Callable[[], tuple[Any, ...]]
) -> None:
    raised = _call(_handle(deployment), method, *args())
    assert leaked(str(raised)), "the premise: Ray's re-raised exception carries the remote traceback"
    error = to_api_error(raised)
    body = render(path, error).body.decode()
    assert leaked(body) is None, body
    assert "\n" not in error.message and len(error.message) <= 300
    if error.kind is ErrorKind.INTERNAL:
        assert error.message == "Internal error; the request can be retried."
