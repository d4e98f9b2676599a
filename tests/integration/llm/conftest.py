"""Fixtures for the LLM engine: a real OpenAI-compatible server and loopback fakes.

The real server is the project's own OpenAI-compatible llama.cpp server
(``python -m deployments.llm_server``: continuous batching over two slots)
running the SmolLM2-135M-Instruct GGUF on CPU, so the engine is exercised
against a genuine ``/v1`` implementation rather than a mock. Faults the real server
cannot be asked to produce (503, 429 with Retry-After, slow answers, wrong
line counts) come from tiny loopback HTTP servers, some of which forward to
the real one.

The real server requires the service key, as in the profiles. The session
exports one in ``MEDIATRANS_LLM_KEY`` (unless the environment has one): the
server inherits it and every ``LLMEngine`` sends it by default, so the tests
go through the key path the Translator uses.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from engines.llm.service_key import ENV_VAR, bearer_header
from engines.translation.apertium.engine import ApertiumEngine
from engines.translation.llm.engine import LLMEngine
from loadtests.llm_process import ensure_service_key
from tests.integration.llm.llm_fakes import Handler, Loopback, free_port
from tests.support.apertium import started_apertium
from tests.support.llm_models import smollm2_gguf

#: The key the real servers require and the engines of this session send.
SERVICE_KEY = ensure_service_key()

#: How long the model may take to load before the session gives up.
SERVER_READY_TIMEOUT_S = 90.0


@pytest.fixture
def loopback() -> Iterator[Callable[[Handler], Loopback]]:
    """Factory for loopback servers, all closed at teardown."""
    servers: list[Loopback] = []

    def make(handler: Handler) -> Loopback:
        servers.append(Loopback(handler))
        return servers[-1]

    yield make
    for server in servers:
        server.close()


#: Model id the loopback fakes serve.
STUB_MODEL = "stub"


@pytest.fixture
def stub_engines() -> Iterator[Callable[..., LLMEngine]]:
    """Factory for started engines of a loopback server (model ``stub``, no retries unless asked); all shut down."""
    started: list[LLMEngine] = []

    def make(url: str, **options: object) -> LLMEngine:
        engine = LLMEngine(**{"base_url": url, "model": STUB_MODEL, "max_retries": 0, **options})  # type: ignore[arg-type]
        engine.start()
        started.append(engine)
        return engine

    yield make
    for engine in started:
        engine.shutdown()


@pytest.fixture(scope="session")
def apertium() -> ApertiumEngine:
    """A started Apertium engine with its en->es mode; skips where either is absent."""
    return started_apertium([("en", "es")])


# --------------------------------------------------------------------------
# The real server
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class LLMServer:
    """Where the real server listens and which model id it serves."""

    base_url: str
    model: str
    api_key: str = SERVICE_KEY

    @property
    def headers(self) -> dict[str, str]:
        """What a caller the server accepts sends."""
        return bearer_header(self.api_key)

    def client(self, timeout_s: float) -> httpx.Client:
        """An HTTP client of the server that sends the service key."""
        return httpx.Client(base_url=self.base_url, timeout=timeout_s, headers=self.headers)

    def wait_idle(self, timeout_s: float = 30.0) -> None:
        """Block until the server answers a one-token completion again (after an abandoned call).

        ``/v1/models`` answers even while the model is busy, so a tiny
        completion is what shows the scheduler is free to take new work.
        """
        wait_ready(self.base_url, None, timeout_s)
        body = {"model": self.model, "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 1, "temperature": 0}
        with self.client(timeout_s) as http:
            http.post("/v1/chat/completions", json=body).raise_for_status()


#: The repository root: the server runs from there with it on ``PYTHONPATH``.
REPO_ROOT = Path(__file__).resolve().parents[3]

#: The id the server lists and clients pass as ``model``.
MODEL_ID = "smollm2"
#: Two slots share 4096 KV cells, so one request may use 2048 tokens.
SLOTS = 2
N_CTX = 4096


def server_command(model: Path, port: int) -> list[str]:
    """Command line of the project's OpenAI-compatible server on a loopback port."""
    return [
        sys.executable, "-m", "deployments.llm_server",
        "--model", str(model), "--host", "127.0.0.1", "--port", str(port),
        "--model-id", MODEL_ID, "--slots", str(SLOTS), "--n-ctx", str(N_CTX),
    ]  # fmt: skip


def server_env() -> dict[str, str]:
    """The current environment (the service key included) with the repository root first on ``PYTHONPATH``."""
    paths = [str(REPO_ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths), ENV_VAR: SERVICE_KEY}


def wait_ready(base_url: str, process: subprocess.Popen[bytes] | None, timeout_s: float) -> str:
    """Poll ``/v1/models`` until it lists a model; return its id."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"LLM server exited with {process.returncode}")
        try:
            data = httpx.get(f"{base_url}/v1/models", timeout=2.0, headers=bearer_header(SERVICE_KEY)).json()["data"]
            if data:
                return str(data[0]["id"])
        except (httpx.HTTPError, ValueError, KeyError):
            pass
        time.sleep(0.25)
    raise TimeoutError(f"LLM server at {base_url} not ready after {timeout_s:.0f}s")


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if the server ignores it."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def running_llm_server(log_dir: Path) -> Iterator[LLMServer]:
    """Start one server (its log in ``log_dir``), yield where it listens, stop it on exit."""
    pytest.importorskip("llama_cpp")
    model = smollm2_gguf()
    port = free_port()
    log = log_dir / "server.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            server_command(model, port), cwd=REPO_ROOT, env=server_env(), stdout=sink, stderr=subprocess.STDOUT
        )
    base_url = f"http://127.0.0.1:{port}"
    try:
        model_id = wait_ready(base_url, process, SERVER_READY_TIMEOUT_S)
    except (RuntimeError, TimeoutError) as exc:
        stop(process)
        tail = log.read_text(errors="replace")[-3000:]
        raise RuntimeError(f"{exc}; server log tail:\n{tail}") from exc
    try:
        yield LLMServer(base_url, model_id)
    finally:
        stop(process)


@pytest.fixture(scope="session")
def llm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LLMServer]:
    """Start the real server once per session; kill it at the end."""
    with running_llm_server(tmp_path_factory.mktemp("llm-server")) as server:
        yield server


@pytest.fixture(scope="module")
def start_llm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[], LLMServer]]:
    """Factory for servers of a module's own, each with an empty KV cache; all stopped at module end.

    Greedy answers depend slightly on where llama.cpp placed a sequence's
    cells in the shared KV cache (their order changes the attention sums),
    so tests that compare two greedy answers token for token need a server
    whose cache only their own requests have shaped.
    """
    with ExitStack() as stack:

        def start() -> LLMServer:
            return stack.enter_context(running_llm_server(tmp_path_factory.mktemp("llm-server")))

        yield start
