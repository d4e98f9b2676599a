"""Measured processing speed, for the ``estimated_seconds`` of new tasks."""

from __future__ import annotations

from typing import ClassVar

from redis.asyncio import Redis

from core import keys


class SpeedStats:
    """Seconds of work per second of media, per job kind.

    An exponentially weighted mean per kind, so estimates follow the deployed
    hardware rather than a constant.
    """

    ALPHA = 0.3
    #: Until a kind has been measured: on 2 CPU cores, ``loadtests/bench_long_video.py`` measured 0.42-0.48 s per
    #: second for diarized subtitles and 0.91 for dubbing (5 and 20 minutes; GPU clusters measure their own).
    #: An added language (``added-*``) skips extraction and recognition, about a quarter of a subtitle task.
    DEFAULTS: ClassVar[dict[str, float]] = {
        "subtitles": 0.5,
        "burn": 1.0,
        "dub": 0.95,
        "added-subtitles": 0.3,
        "added-burn": 0.8,
        "added-dub": 0.8,
        "subtitle-file": 0.25,
    }
    FIXED_OVERHEAD_S = 5.0

    def __init__(self, redis: Redis) -> None:
        self.redis = redis

    async def record(self, kind: str, elapsed_s: float, media_s: float) -> None:
        if media_s <= 0:
            return
        observed = max(0.0, elapsed_s - self.FIXED_OVERHEAD_S) / media_s
        current = await self.factor(kind)
        await self.redis.set(keys.speed(kind), str((1 - self.ALPHA) * current + self.ALPHA * observed), ex=keys.SPEED_TTL_S)

    async def factor(self, kind: str) -> float:
        raw = await self.redis.get(keys.speed(kind))
        return float(raw) if raw else self.DEFAULTS.get(kind, 1.0)

    async def estimate(self, kind: str, media_s: float | None) -> int:
        """Seconds a task of ``media_s`` seconds is expected to take (unknown length: 10 min)."""
        return max(1, round(self.FIXED_OVERHEAD_S + (await self.factor(kind)) * (media_s if media_s else 600.0)))
