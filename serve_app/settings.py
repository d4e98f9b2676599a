"""Typed arguments of the Serve application (``args:`` in configs/*.yaml)."""

from __future__ import annotations

import os
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

MiB = 1 << 20

DEFAULT_REDIS_URL = "redis://127.0.0.1:6390/0"


class EngineSpec(BaseModel):
    """Which engine a capability deployment wraps, and its options."""

    model_config = ConfigDict(extra="forbid")

    engine: str
    options: dict[str, Any] = Field(default_factory=dict)


class TranslatorArgs(EngineSpec):
    """The translator: a primary engine and an optional fallback engine."""

    fallback: EngineSpec | None = None


class BodyLimits(BaseModel):
    """Streaming request-body caps in bytes, per endpoint family."""

    model_config = ConfigDict(extra="forbid")

    json_bytes: int = 1 * MiB
    video_upload_bytes: int = 500 * MiB + 1 * MiB  # 500 MB file plus multipart fields
    voice_upload_bytes: int = 50 * MiB + 1 * MiB  # 50 MB sample plus fields

    def for_path(self, path: str) -> int:
        if path.startswith("/v1/video/translate"):
            return self.video_upload_bytes
        if path.startswith("/v1/voice/clone"):
            return self.voice_upload_bytes
        return self.json_bytes


class AppArgs(BaseModel):
    """Everything the ingress needs; YAML supplies it, env fills secrets.

    Attributes:
        redis_url: task/account store; ``REDIS_URL`` overrides the default.
        max_inflight_requests: per ingress replica; beyond it → 503 + Retry-After.
        capabilities_refresh_s: how long the merged engine report is cached.
        handle_timeout_s: deadline of a call into a capability deployment.
        translator: translator engine spec; ``None`` serves no translation.
    """

    model_config = ConfigDict(extra="forbid")

    redis_url: str = Field(default_factory=lambda: os.environ.get("REDIS_URL", DEFAULT_REDIS_URL))
    public_base_url: str | None = None
    max_inflight_requests: int = Field(256, ge=1)
    capabilities_refresh_s: float = Field(30.0, gt=0)
    handle_timeout_s: float = Field(60.0, gt=0)
    body_limits: BodyLimits = Field(default_factory=BodyLimits)
    translator: TranslatorArgs | None = None
    log_level: str = "INFO"
