"""Start the embedded LLM server (``python -m deployments.llm_server``) in its own process.

The server requires the service key (``MEDIATRANS_LLM_KEY``): the key of
the environment, or one made for this process and exported, so the server
inherits it and the ``LLMEngine`` of the caller sends it by default.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx

from engines.llm.service_key import ENV_VAR, bearer_header, configured_key

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "models" / "qwen2.5-coder-1.5b-instruct" / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def ensure_service_key() -> str:
    """The service key of this process's environment, made and exported when there is none."""
    key = configured_key()
    if key is None:
        key = secrets.token_urlsafe(32)
        os.environ[ENV_VAR] = key
    return key


@contextlib.contextmanager
def local_llm_server(model: Path = MODEL, slots: int = 4, timeout_s: float = 120.0, extra: Sequence[str] = ()) -> Iterator[str]:
    """Yield the base URL of a freshly started server (``extra``: more command-line flags); stop it afterwards."""
    port = free_port()
    command = [sys.executable, "-m", "deployments.llm_server", "--model", str(model), "--port", str(port)]
    command += ["--slots", str(slots), *extra]
    key = ensure_service_key()
    env = {**os.environ, "PYTHONPATH": str(ROOT), ENV_VAR: key}
    log = tempfile.NamedTemporaryFile(prefix="llm-server-", suffix=".log", delete=False)  # noqa: SIM115
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"LLM server exited: {Path(log.name).read_text(errors='replace')[-2000:]}")
            try:
                if httpx.get(f"{base_url}/v1/models", timeout=2, headers=bearer_header(key)).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"LLM server not ready after {timeout_s} s")
            time.sleep(0.5)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
        Path(log.name).unlink(missing_ok=True)
