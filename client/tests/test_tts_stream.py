"""Speech as an iterator of audio chunks (sync and async), files written from it, and ``mediatrans tts -o -``."""

from __future__ import annotations

import asyncio
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import LoopbackServer, Recorded, Reply
from mediatrans_client import AsyncClient, Client, InvalidRequestError, RateLimitedError

MEDIATRANS = Path(sys.executable).with_name("mediatrans")
AUDIO = b"ID3\x04" + bytes(range(256)) * 100  # 25,604 bytes, every byte value


def speak(server: LoopbackServer, audio: bytes = AUDIO) -> None:
    server.route("POST", "/v1/tts")(lambda r: Reply(200, audio, {"Content-Type": "audio/mpeg"}))


def test_stream_yields_the_audio_in_chunks(server: LoopbackServer, client: Client) -> None:
    speak(server)
    chunks = client.tts.stream("Hello.", "en-us-female", speed=1.2, chunk_size=1000)
    assert not server.requests_to("POST", "/v1/tts")  # sent when iteration starts
    received = list(chunks)
    assert len(received) == 26 and all(0 < len(chunk) <= 1000 for chunk in received)
    assert b"".join(received) == AUDIO
    body = json.loads(server.requests_to("POST", "/v1/tts")[0].body)
    assert body == {"text": "Hello.", "voice": "en-us-female", "speed": 1.2}


def test_stopping_early_and_errors_on_first_next(server: LoopbackServer) -> None:
    speak(server)
    with Client(server.base_url, "tok", max_attempts=1) as client:
        chunks = client.tts.stream("Hello.", lang="en", chunk_size=100)
        assert next(chunks) == AUDIO[:100]
        chunks.close()  # type: ignore[attr-defined]  # releases the connection; the client stays usable
        assert b"".join(client.tts.stream("Again.", lang="en")) == AUDIO
        server.route("POST", "/v1/tts")(lambda r: Reply(400, {"code": 1001, "message": "lang: unknown", "request_id": "r"}))
        refused = client.tts.stream("Hello.", lang="xx")
        with pytest.raises(InvalidRequestError):
            next(refused)


def test_synthesize_writes_the_stream_and_leaves_nothing_on_failure(
    server: LoopbackServer, client: Client, tmp_path: Path
) -> None:
    speak(server)
    out = client.tts.synthesize("Hello.", None, tmp_path / "hello.mp3", lang="en")
    assert out.read_bytes() == AUDIO
    server.route("POST", "/v1/tts")(lambda r: Reply(413, {"code": 3001, "message": "Text too long.", "request_id": "r"}))
    with pytest.raises(InvalidRequestError):
        client.tts.synthesize("x" * 10, None, tmp_path / "long.mp3", lang="en")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hello.mp3"]


def test_async_stream_yields_the_audio_in_chunks(server: LoopbackServer, tmp_path: Path) -> None:
    speak(server)

    async def run() -> tuple[list[bytes], bytes]:
        async with AsyncClient(server.base_url, "tok") as client:
            chunks = [chunk async for chunk in client.tts.stream("Hello.", lang="en", chunk_size=4096)]
            path = await client.tts.synthesize("Hello.", None, tmp_path / "a.mp3", lang="en")
            return chunks, path.read_bytes()

    chunks, written = asyncio.run(run())
    assert len(chunks) == 7 and all(len(chunk) <= 4096 for chunk in chunks)
    assert b"".join(chunks) == written == AUDIO


def test_a_429_on_the_stream_carries_retry_after_and_the_rate_limit(server: LoopbackServer) -> None:
    limits = {"X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "9", "Retry-After": "3"}
    busy = {"code": 4001, "message": "Too many speech streams at once.", "request_id": "r"}
    server.route("POST", "/v1/tts")(lambda r: Reply(429, busy, limits))
    with Client(server.base_url, "tok", max_attempts=1) as client, pytest.raises(RateLimitedError) as info:
        next(client.tts.stream("Hello.", lang="en"))
    assert info.value.retry_after == 3.0
    assert info.value.rate_limit is not None and (info.value.rate_limit.remaining, info.value.rate_limit.reset) == (0, 9.0)
    last = client.last_rate_limit
    assert last is not None and (last.limit, last.remaining, last.reset) == (60, 0, 9.0)


# -- the command line ------------------------------------------------------------------------------------------------


@pytest.fixture
def env(server: LoopbackServer, tmp_path: Path) -> dict[str, str]:
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("MEDIATRANS_")},
        "MEDIATRANS_BASE_URL": server.base_url,
        "MEDIATRANS_TOKEN": "mt_cli_token",
        "XDG_CONFIG_HOME": str(tmp_path),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }


def run_binary(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    """The command in the test's own folder (a client that took '-' for a file name would write it there)."""
    return subprocess.run([str(MEDIATRANS), *args], env=env, cwd=env["XDG_CONFIG_HOME"], capture_output=True, timeout=60)


def test_dash_out_writes_exactly_the_audio_to_stdout(server: LoopbackServer, env: dict[str, str]) -> None:
    bodies: list[dict[str, object]] = []

    @server.route("POST", "/v1/tts")
    def tts(request: Recorded) -> Reply:
        bodies.append(json.loads(request.body))
        return Reply(200, AUDIO, {"Content-Type": "audio/mpeg"})

    result = run_binary(["tts", "Hello there.", "--lang", "en", "-o", "-"], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == AUDIO
    assert bodies[-1] == {"text": "Hello there.", "lang": "en", "output_format": "mp3"}
    as_json = run_binary(["--json", "tts", "Hi.", "--lang", "en", "--format", "wav", "-o", "-"], env)
    assert as_json.returncode == 0 and as_json.stdout == AUDIO  # no JSON summary mixed into the audio
    assert bodies[-1]["output_format"] == "wav"
    piped = run_binary(["tts", "Hi.", "--lang", "en"], env)  # no -o, stdout not a terminal: stdout
    assert piped.returncode == 0 and piped.stdout == AUDIO


def test_dash_out_error_prints_nothing_on_stdout(server: LoopbackServer, env: dict[str, str]) -> None:
    server.route("POST", "/v1/tts")(lambda r: Reply(400, {"code": 1001, "message": "voice: unknown", "request_id": "r9"}))
    result = run_binary(["tts", "Hello.", "--voice", "nope", "-o", "-"], env)
    assert result.returncode == 5 and result.stdout == b""
    assert b"voice: unknown" in result.stderr and b"r9" in result.stderr


def test_without_out_a_terminal_is_refused(server: LoopbackServer, env: dict[str, str]) -> None:
    speak(server)
    primary, secondary = pty.openpty()
    try:
        result = subprocess.run(
            [str(MEDIATRANS), "tts", "Hello.", "--lang", "en"], env=env, stdout=secondary, stderr=subprocess.PIPE, timeout=60
        )
    finally:
        os.close(secondary)
        os.close(primary)
    assert result.returncode == 2 and b"-o" in result.stderr
    assert not server.requests_to("POST", "/v1/tts")
