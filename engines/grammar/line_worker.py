"""A child process that answers one JSON object per line (Grammalecte, LanguageTool languages).

The worker prints a ready line first; every request carries an ``id`` and gets
one reply line with the same ``id``. Calls may come from several threads at
once: a reader thread hands each reply to its caller, so a worker that answers
concurrently (the LanguageTool worker checks on two threads) overlaps them, and
one that answers in order simply queues them. A worker that does not answer
within ``timeout_s`` is killed, and one whose pipe broke is marked dead; the
owner starts a new one on its next request.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from engines.errors import EngineUnavailable


class LineWorker:
    """Args: ``argv`` to start; ``label`` for messages ("the Grammalecte worker"); ``timeout_s`` per answer."""

    def __init__(self, argv: Sequence[str], *, label: str, timeout_s: float) -> None:
        self.label, self.timeout_s = label, timeout_s
        self._ids = itertools.count(1)
        self._pending: dict[int, Future[dict[str, Any]]] = {0: Future()}  # 0: the ready line
        self._write = threading.Lock()
        try:
            self._proc: subprocess.Popen[str] | None = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                encoding="utf-8",
                bufsize=1,
            )
        except OSError as exc:
            raise EngineUnavailable(f"cannot start {label}: {exc.strerror or type(exc).__name__}") from exc
        threading.Thread(target=self._read_replies, args=(self._proc,), daemon=True, name="line-worker").start()
        self.ready: dict[str, Any] = self._wait(0)

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        """The reply to ``request`` (an ``id`` is added)."""
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise EngineUnavailable(f"{self.label} stopped")
        with self._write:
            request_id = next(self._ids)
            self._pending[request_id] = Future()
            try:
                proc.stdin.write(json.dumps({**request, "id": request_id}, ensure_ascii=False) + "\n")
                proc.stdin.flush()
            except (BrokenPipeError, OSError) as exc:
                self._pending.pop(request_id, None)
                self.stop()
                raise EngineUnavailable(f"{self.label} stopped") from exc
        return self._wait(request_id)

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(5)

    def _wait(self, request_id: int) -> dict[str, Any]:
        future = self._pending[request_id]
        try:
            return future.result(self.timeout_s)
        except FutureTimeout:
            self.stop()
            raise EngineUnavailable(f"{self.label} did not answer within {self.timeout_s:g} s") from None
        finally:
            self._pending.pop(request_id, None)

    def _read_replies(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            reply: dict[str, Any] = json.loads(line)
            future = self._pending.get(int(reply.get("id", 0)))
            if future is not None and not future.done():
                future.set_result(reply)
        stopped = EngineUnavailable(f"{self.label} stopped")
        for future in list(self._pending.values()):  # the process ended: nobody waits for a timeout
            if not future.done():
                future.set_exception(stopped)
