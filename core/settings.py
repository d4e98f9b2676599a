"""Typed arguments of the Serve application (``args:`` in configs/*.yaml)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from core.capability_args import (
    AsrArgs,
    DiarizerArgs,
    DubbingArgs,
    GrammarArgs,
    TranslatorArgs,
    TtsArgs,
    VoiceClonerArgs,
)
from core.paths import project_path
from engines.media.probe import MAX_BYTES as MAX_VIDEO_BYTES
from engines.net.urls import DEFAULT_PORTS, UrlPolicy

KiB = 1 << 10
MiB = 1 << 20

DEFAULT_REDIS_URL = "redis://127.0.0.1:6390/0"


class BodyLimits(BaseModel):
    """Streaming request-body caps in bytes, per route and body kind (docs/limits.md).

    Uploads (multipart) carry the media; JSON bodies only need room for the
    largest text a route takes once JSON-escaped: a code point may take 12 bytes
    (``\\ud83d\\ude00``), so 50,000 characters need up to 600,000 bytes.
    """

    model_config = ConfigDict(extra="forbid")

    json_bytes: int = Field(1 * MiB, ge=1024, description="Other bodies: glossaries, video tasks given a video_url.")
    text_json_bytes: int = Field(640 * KiB, ge=1024, description="Game localization and grammar (50,000 characters).")
    tts_json_bytes: int = Field(64 * KiB, ge=1024, description="Text to speech (5,000 characters).")
    small_json_bytes: int = Field(16 * KiB, ge=1024, description="Voice clone (sample given as a URL) and voice updates.")
    video_upload_bytes: int = MAX_VIDEO_BYTES + 1 * MiB  # the video limit plus multipart fields
    voice_upload_bytes: int = 50 * MiB + 1 * MiB  # 50 MB sample plus fields
    #: Subtitle files are refused over 2 MiB by the reader, whose 400 names the limit; the stream is cut at twice that.
    subtitle_upload_bytes: int = 4 * MiB
    #: Translation memories (docs/memories.md): a file or JSON entries up to the 16 MiB memory cap, plus fields.
    memory_upload_bytes: int = 16 * MiB + 64 * 1024

    def for_request(self, path: str, content_type: str = "") -> int:
        """The cap of a body sent to ``path`` with ``content_type`` (multipart: an upload)."""
        upload = content_type.split(";")[0].strip().lower().startswith("multipart/")
        path = path.rstrip("/")
        if path.startswith("/v1/video/translate"):
            return self.video_upload_bytes if upload else self.json_bytes
        if path == "/v1/subtitles/translate":
            return self.subtitle_upload_bytes if upload else self.json_bytes
        if path.startswith("/v1/voice/clone"):
            return self.voice_upload_bytes if upload and path == "/v1/voice/clone" else self.small_json_bytes
        if path in ("/v1/game/localization", "/v1/grammar"):
            return self.text_json_bytes
        if path == "/v1/tts":
            return self.tts_json_bytes
        if path == "/v1/memories" or (path.startswith("/v1/memories/") and path.endswith("/entries")):
            return self.memory_upload_bytes
        return self.json_bytes


class WorkerArgs(BaseModel):
    """The JobWorker deployment (job runner, callback sender, housekeeping)."""

    model_config = ConfigDict(extra="forbid", validate_default=True)

    work_dir: str = Field(default_factory=lambda: os.environ.get("MEDIATRANS_WORK_DIR", "var/work"))

    @field_validator("work_dir")
    @classmethod
    def _absolute(cls, value: str) -> str:
        return project_path(value)

    max_concurrent_jobs: int = Field(1, ge=1)
    heartbeat_s: float = Field(10.0, gt=0)
    reclaim_after_s: float = Field(60.0, gt=0, description="A job silent this long is taken over by another worker.")
    max_deliveries: int = Field(3, ge=1)
    fetch_timeout_s: float = Field(600.0, gt=0)
    step_timeout_s: float = Field(3 * 3600.0, gt=0, description="Deadline of one ffmpeg step.")
    delivery_poll_s: float = Field(1.0, gt=0, description="How often due callbacks are looked for (they also leave at once).")
    housekeeping_s: float = Field(3600.0, gt=0, description="Period of the purge of dead files and the orphan sweep.")
    staging_max_age_s: float = Field(6 * 3600.0, gt=0, description="Upload staging folders untouched this long are dead.")
    claim_error_limit: int = Field(5, ge=1, description="Consecutive job-claim failures after which the worker is unhealthy.")
    metrics_interval_s: float = Field(10.0, gt=0, description="Period of the queue-depth and task-state gauges.")

    @property
    def staging_dir(self) -> Path:
        """Where uploads land while they stream in (renamed into the file store once accepted)."""
        return Path(self.work_dir) / "uploads"


class UrlPolicyArgs(BaseModel):
    """Which URLs the service fetches (video_url) or calls (callback_url)."""

    model_config = ConfigDict(extra="forbid")

    allow_private: bool = Field(False, description="Allow loopback/private addresses (tests, closed networks only).")
    allowed_hosts: list[str] = Field(
        default_factory=list, description="Host names the operator trusts: allowed even when private, on any port."
    )
    allowed_ports: list[int] = Field(
        default_factory=lambda: sorted(DEFAULT_PORTS.values()), description="Ports other hosts may use (80 and 443 by default)."
    )

    def policy(self) -> UrlPolicy:
        return UrlPolicy(
            allow_private=self.allow_private,
            allowed_hosts=frozenset(self.allowed_hosts),
            allowed_ports=frozenset(self.allowed_ports),
        )


class WebhookArgs(BaseModel):
    """Callback delivery: per-attempt timeout and the retry schedule (about 3 h by default)."""

    model_config = ConfigDict(extra="forbid")

    timeout_s: float = Field(10.0, gt=0)
    max_attempts: int = Field(10, ge=1)
    base_delay_s: float = Field(30.0, gt=0)
    max_delay_s: float = Field(3600.0, gt=0)


class StorageArgs(BaseModel):
    """Where outputs and uploads live, and how download links are signed."""

    model_config = ConfigDict(extra="forbid", validate_default=True)

    backend: str = Field("local", pattern="^(local|s3)$")
    root_dir: str = Field(default_factory=lambda: os.environ.get("MEDIATRANS_FILES_DIR", "var/files"))

    @field_validator("root_dir")
    @classmethod
    def _absolute(cls, value: str) -> str:
        return project_path(value)

    link_ttl_s: int = Field(24 * 3600, gt=0)
    secret: str = Field(default_factory=lambda: os.environ.get("MEDIATRANS_LINK_SECRET", ""))
    s3: dict[str, Any] = Field(default_factory=dict, description="endpoint_url, bucket, region, access_key, secret_key, prefix")


class AnonymousLimits(BaseModel):
    """Rate limit of unauthenticated endpoints (``/v1/languages``), per client address."""

    model_config = ConfigDict(extra="forbid")

    rate_per_minute: int = Field(300, ge=1)
    burst: int = Field(60, ge=1)
    trust_forwarded_for: bool = Field(
        False, description="Take the client address from X-Forwarded-For (only behind a proxy that sets it)."
    )


class AppArgs(BaseModel):
    """Everything the ingress needs; YAML supplies it, env fills secrets.

    Attributes:
        redis_url: task/account store; ``REDIS_URL`` overrides the default.
        max_inflight_requests: per ingress replica; beyond it → 503 + Retry-After.
        capabilities_refresh_s: how long the merged engine report is cached.
        handle_timeout_s: deadline of a call into a capability deployment (past it: cancelled, 503 + Retry-After).
        grammar_chars_per_s: the slowest checking rate a grammar call is waited for: a check of ``n``
            characters gets ``handle_timeout_s + n / grammar_chars_per_s`` seconds (50,000 characters: 160 s).
        translator: translator engine spec; ``None`` serves no translation.
    """

    model_config = ConfigDict(extra="forbid")

    redis_url: str = Field(default_factory=lambda: os.environ.get("REDIS_URL", DEFAULT_REDIS_URL))
    public_base_url: str | None = None
    max_inflight_requests: int = Field(256, ge=1)
    capabilities_refresh_s: float = Field(30.0, gt=0)
    handle_timeout_s: float = Field(60.0, gt=0)
    grammar_chars_per_s: float = Field(500.0, gt=0)
    readiness_cache_s: float = Field(2.0, ge=0, description="How long one /readyz answer is reused.")
    anonymous_limits: AnonymousLimits = Field(default_factory=AnonymousLimits)
    body_limits: BodyLimits = Field(default_factory=BodyLimits)
    translator: TranslatorArgs | None = None
    asr: AsrArgs | None = None
    grammar: GrammarArgs | None = None
    tts: TtsArgs | None = None
    voice_cloner: VoiceClonerArgs | None = None
    diarizer: DiarizerArgs | None = None
    dubbing: DubbingArgs = Field(default_factory=DubbingArgs)
    worker: WorkerArgs = Field(default_factory=WorkerArgs)
    url_policy: UrlPolicyArgs = Field(default_factory=UrlPolicyArgs)
    storage: StorageArgs = Field(default_factory=StorageArgs)
    webhooks: WebhookArgs = Field(default_factory=WebhookArgs)
    log_level: str = "INFO"

    @property
    def voice_clone_timeout_s(self) -> float:
        """Deadline of a synchronous clone: the cloner's ``sync_timeout_s``, or its default when none is configured."""
        if self.voice_cloner is not None:
            return self.voice_cloner.sync_timeout_s
        default: float = VoiceClonerArgs.model_fields["sync_timeout_s"].default
        return default

    def grammar_timeout_s(self, chars: int) -> float:
        """Deadline of a grammar check of ``chars`` characters: long texts get time in proportion."""
        return self.handle_timeout_s + chars / self.grammar_chars_per_s
