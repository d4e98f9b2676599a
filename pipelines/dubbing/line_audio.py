"""Spoken dubbing lines kept with a task's outputs, so a revision speaks again only the lines that changed.

A line's audio depends only on what it says and how: its text, the voice (id, or the fitted style), the
gender, the pitch shift, the speed and the language. :func:`line_key` hashes those; the audio (after
silence trimming, at the track rate) is stored as 16-bit FLAC (libsndfile, lossless at the mix's
resolution) in the file store, in the folder of the task that recognized the video, as
``line-<key>.flac``. Revisions of that task, and revisions of those, read and add to the same folder,
so the files live as long as the task's outputs and are deleted with them.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from core.files.base import FileStore, FileStoreError, object_key

log = logging.getLogger(__name__)


def line_key(text: str, voice: str | None, style: Any, gender: str, semitones: float, speed: float, lang: str) -> str:
    """What makes a line sound as it does, hashed (24 hex digits)."""
    spec = json.dumps([text, voice, style, gender, round(semitones, 4), round(speed, 4), lang], sort_keys=True, default=str)
    return hashlib.sha256(spec.encode("utf-8")).hexdigest()[:24]


class LineAudio:
    """Spoken lines of one recognized video in the file store (``get`` / ``put`` by :func:`line_key`).

    Args:
        files: the service's file store.
        folder: the id of the task that recognized the video.
        record: called with (key, size) of each stored file (the account's output bytes).
    """

    def __init__(self, files: FileStore, folder: str, record: Callable[[str, int], Awaitable[None]] | None = None) -> None:
        self.files, self.folder, self.record = files, folder, record
        self.hits = self.misses = 0

    async def get(self, key: str, rate: int) -> np.ndarray | None:
        with tempfile.TemporaryDirectory(prefix="line-") as scratch:
            try:
                path = await self.files.fetch(object_key(self.folder, f"line-{key}.flac"), Path(scratch) / "line.flac")
                audio, stored_rate = await asyncio.to_thread(sf.read, str(path), dtype="float32")
            except (FileNotFoundError, FileStoreError, ValueError, RuntimeError, sf.LibsndfileError):
                self.misses += 1
                return None
        if stored_rate != rate:
            self.misses += 1
            return None
        self.hits += 1
        return np.asarray(audio, np.float32)

    async def put(self, key: str, audio: np.ndarray, rate: int) -> None:
        """Keep a spoken line; a line that cannot be kept is only spoken again next time."""
        with tempfile.NamedTemporaryFile(suffix=".flac", delete=False) as handle:
            sf.write(handle, np.clip(audio, -1.0, 1.0), rate, format="FLAC", subtype="PCM_16")
        try:
            stored = await self.files.put(self.folder, f"line-{key}.flac", handle.name, "audio/flac", consume=True)
            if self.record is not None:
                await self.record(stored.key, stored.size)
        except (OSError, FileStoreError) as exc:
            log.warning("spoken line %s not kept: %s", key, exc)
        finally:
            Path(handle.name).unlink(missing_ok=True)
