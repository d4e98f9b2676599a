"""Benchmark: one hostile account against the service; memory must stay flat.

Starts a real redis-server, Ray and the Serve app (apertium translator, the
CPU profile's voice cloner) on this machine, then, with one account:

1. creates glossaries of about 0.9 MB as fast as it can (until refused or ``--glossaries``);
2. posts a 50 MB JSON body to ``/v1/voice/clone`` (streamed, no Content-Length);
3. posts an 18 KB FLAC that claims 384 kHz as a voice sample;
4. asks for ``/openapi.json`` 100 times (and 100 times more with ``If-None-Match``).

Before and after each step it prints Redis ``used_memory`` and the RSS of the
ingress and voice-cloner replicas; the last column is after ÷ before.

    .venv/bin/python loadtests/bench_abuse.py
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import soundfile
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loadtests.local_profile import start_ray  # noqa: E402
from tests.support.services import free_port, redis_server, wait_http_ok  # noqa: E402

MiB = 1 << 20


def start_app(redis_url: str, port: int, work: Path) -> None:
    from ray import serve

    from serve_app.app import build_app

    local = yaml.safe_load((ROOT / "configs" / "local.yaml").read_text())["applications"][0]["args"]
    os.environ["PYTHONPATH"] = f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    start_ray()
    serve.start(http_options={"host": "127.0.0.1", "port": port})
    args = {
        "redis_url": redis_url,
        "translator": {"engine": "apertium"},
        "voice_cloner": local["voice_cloner"],
        "worker": {"work_dir": str(work / "work")},
        "storage": {"root_dir": str(work / "files")},
    }
    serve.run(build_app(args), name="mediatrans", route_prefix="/")


def make_token(redis_url: str) -> str:
    from redis.asyncio import Redis

    from core.accounts import AccountStore

    async def make() -> str:
        redis = Redis.from_url(redis_url, decode_responses=True)
        store = AccountStore(redis)
        account = await store.create(f"abuse-{time.time_ns()}", rate_per_minute=10_000_000, burst=100_000)
        token = (await store.issue_token(account)).token
        await redis.aclose()
        return token

    return asyncio.run(make())


def replica_rss_mb() -> dict[str, float]:
    """Resident memory of the ingress and voice-cloner replicas (summed over replicas), MB.

    Ray titles each replica's process ``ray::ServeReplica:<app>:<deployment>``.
    """
    import psutil

    rss: dict[str, float] = {"ingress": 0.0, "cloner": 0.0}
    for process in psutil.process_iter(["cmdline", "memory_info"]):
        title = " ".join(process.info["cmdline"] or [])
        role = "ingress" if ":Ingress" in title else "cloner" if ":VoiceCloner" in title else None
        if role and title.startswith("ray::ServeReplica") and process.info["memory_info"]:
            rss[role] += process.info["memory_info"].rss / 1e6
    return rss


def redis_mb(redis_url: str) -> float:
    import redis

    client = redis.Redis.from_url(redis_url)
    used = int(client.info("memory")["used_memory"])
    client.close()
    return used / 1e6


class Meter:
    def __init__(self, redis_url: str) -> None:
        self.redis_url = redis_url

    def snapshot(self) -> dict[str, float]:
        return {"redis": redis_mb(self.redis_url), **replica_rss_mb()}

    def report(self, step: str, before: dict[str, float], after: dict[str, float], note: str) -> None:
        print(f"\n== {step}: {note}")
        print(f"{'':10} {'before MB':>10} {'after MB':>10} {'ratio':>7}")
        for name in before:
            ratio = after[name] / before[name] if before[name] else float("nan")
            print(f"{name:10} {before[name]:10.1f} {after[name]:10.1f} {ratio:7.3f}")


def glossary_body(index: int, target_bytes: int = 920_000, entries: int = 4_800) -> dict[str, Any]:
    """About ``target_bytes`` of JSON in ``entries`` term pairs (under the 5,000-entry schema limit)."""
    term = (target_bytes // entries - len('{"source": "", "target": ""}, ')) // 2 - 6
    pairs = [{"source": f"{i:06d}" + "x" * term, "target": f"{i:06d}" + "y" * term} for i in range(entries)]
    return {"name": f"abuse-{index}", "source_lang": "en", "target_lang": "es", "entries": pairs}


def hammer_glossaries(client: httpx.Client, auth: dict[str, str], attempts: int) -> str:
    accepted, codes = 0, {}
    started = time.perf_counter()
    for i in range(attempts):
        response = client.post("/v1/glossaries", json=glossary_body(i), headers=auth)
        codes[response.status_code] = codes.get(response.status_code, 0) + 1
        accepted += response.status_code in (200, 201)
    elapsed = time.perf_counter() - started
    return f"{attempts} creates of ~0.92 MB in {elapsed:.1f} s: {accepted} accepted, statuses {codes}"


def huge_json() -> Iterator[bytes]:
    yield b'{"voice_name": "x", "lang": "en", "sample": "https://example.com/a.wav", "pad": ['
    chunk = b"1," * 32768
    for _ in range((50 * MiB) // len(chunk)):
        yield chunk
    yield b"1]}"


def fake_384k_flac() -> bytes:
    """A short FLAC whose header claims 384 kHz: tiny on disk, large when decoded at its own rate."""
    rate = 384_000
    signal = np.zeros(rate * 25, dtype=np.float32)
    buffer = io.BytesIO()
    soundfile.write(buffer, signal, rate, format="FLAC")
    return buffer.getvalue()


def openapi_rounds(client: httpx.Client, n: int) -> str:
    times, etag = [], None
    for _ in range(n):
        started = time.perf_counter()
        response = client.get("/openapi.json")
        times.append((time.perf_counter() - started) * 1000)
        etag = response.headers.get("etag")
    revalidated = [client.get("/openapi.json", headers={"If-None-Match": etag or ""}).status_code for _ in range(n)]
    return (
        f"{n} GETs: median {statistics.median(times):.2f} ms, p99 {sorted(times)[int(0.99 * (n - 1))]:.2f} ms; "
        f"{revalidated.count(304)} of {n} revalidations answered 304"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--glossaries", type=int, default=60, help="creation attempts")
    options = parser.parse_args()
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, redis_server(Path(tmp) / "redis") as server:
        port = free_port()
        start_app(server.url, port, Path(tmp))
        base = f"http://127.0.0.1:{port}"
        wait_http_ok(f"{base}/readyz", timeout_s=300)
        auth = {"Authorization": f"Bearer {make_token(server.url)}"}
        meter = Meter(server.url)
        with httpx.Client(base_url=base, timeout=300) as client:
            steps = [
                ("glossaries", lambda: hammer_glossaries(client, auth, options.glossaries)),
                ("50 MB JSON", lambda: _status(client.post(
                    "/v1/voice/clone", content=huge_json(), headers={**auth, "Content-Type": "application/json"}))),
                ("384 kHz FLAC", lambda: _status(client.post(
                    "/v1/voice/clone", data={"voice_name": "flac", "lang": "en"},
                    files={"sample": ("s.flac", fake_384k_flac(), "audio/flac")}, headers=auth))),
                ("openapi", lambda: openapi_rounds(client, 100)),
            ]  # fmt: skip
            for name, step in steps:
                before = meter.snapshot()
                note = step()
                time.sleep(1.0)
                meter.report(name, before, meter.snapshot(), note)


def _status(response: httpx.Response) -> str:
    body = response.json() if "json" in response.headers.get("content-type", "") else {}
    return f"HTTP {response.status_code} code {body.get('code')}: {str(body.get('message', ''))[:120]}"


if __name__ == "__main__":
    main()
