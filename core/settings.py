"""Typed arguments of the Serve application (``args:`` in configs/*.yaml)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from deployments.engines.media.probe import MAX_BYTES as MAX_VIDEO_BYTES
from deployments.engines.net.urls import DEFAULT_PORTS, UrlPolicy

KiB = 1 << 10
MiB = 1 << 20

#: Relative paths in the config (work dir, files, models) are relative to the project root,
#: whatever directory a Ray worker process happens to run in.
PROJECT_ROOT = Path(__file__).resolve().parents[1]


def project_path(value: str) -> str:
    path = Path(value).expanduser()
    return str(path if path.is_absolute() else PROJECT_ROOT / path)


DEFAULT_REDIS_URL = "redis://127.0.0.1:6390/0"


class EngineSpec(BaseModel):
    """Which engine a capability deployment wraps, and its options."""

    model_config = ConfigDict(extra="forbid")

    engine: str
    options: dict[str, Any] = Field(default_factory=dict)


class TranslatorArgs(BaseModel):
    """The translator's engines and how pairs are routed among them (docs/translation-routing.md).

    Either ``engines`` (routed by the measured ``routing`` table when given,
    else tried in order) or the shorthand ``engine`` + ``options`` +
    ``fallback``, which means ``engines: [engine, fallback]`` without a table.
    """

    model_config = ConfigDict(extra="forbid")

    engine: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    fallback: EngineSpec | None = None
    engines: list[EngineSpec] = Field(default_factory=list)
    routing: str | None = Field(None, description="Routing table (YAML) written by loadtests/score_engines.py.")
    floor: float | None = Field(None, ge=0, le=100, description="chrF floor; default: the table's own.")

    @model_validator(mode="after")
    def _one_form(self) -> TranslatorArgs:
        if self.engine is not None and self.engines:
            raise ValueError("give either `engine` (+ `fallback`) or `engines`, not both")
        if self.engine is None and not self.engines:
            raise ValueError("the translator needs `engine` or `engines`")
        if self.routing is not None:
            self.routing = project_path(self.routing)
        return self

    def chain(self) -> list[EngineSpec]:
        """Every engine, in configuration order."""
        if self.engines:
            return list(self.engines)
        first = EngineSpec(engine=self.engine or "", options=self.options)
        return [first, self.fallback] if self.fallback else [first]


class GrammarArgs(BaseModel):
    """The Grammar deployment: its engines (run together, answers merged) and how long texts are split."""

    model_config = ConfigDict(extra="forbid")

    engines: list[EngineSpec] = Field(min_length=1)
    chunk_chars: int = Field(2000, ge=200, description="Long texts are checked in chunks of whole sentences this long.")
    workers: int = Field(2, ge=1, description="Threads that check chunks and engines at once.")


class TtsArgs(BaseModel):
    """The TTS deployment: its engines (in order of preference) and per-language default engines."""

    model_config = ConfigDict(extra="forbid")

    engines: list[EngineSpec] = Field(min_length=1)
    defaults: dict[str, str] = Field(
        default_factory=dict, description="Language → engine for requests without a voice; else the first engine speaking it."
    )


class VoiceClonerArgs(EngineSpec):
    """The VoiceCloner deployment: one cloning engine (``kokoro-fit`` on CPU, ``xtts`` in the cluster)."""

    sample_timeout_s: float = Field(60.0, gt=0, description="Deadline of fetching a sample URL.")
    sync_timeout_s: float = Field(120.0, gt=0, description="Deadline of a synchronous clone.")


class DiarizerArgs(EngineSpec):
    """The Diarizer deployment: ``embedded-diarizer`` (Silero VAD + VoiceFilter d-vectors) on CPU, ``pyannote`` on GPU."""


class DubbingArgs(BaseModel):
    """AI dubbing in video tasks (docs/dubbing.md); needs the TTS deployment.

    Attributes:
        voice_ranking: measured voice order per language (professional voices), written by loadtests/score_voices.py.
        separation_threads: libDF states separating speech from background at once in a worker.
        fitted_voices: use an account's fitted voice for a diarized speaker whose timbre it matches.
    """

    model_config = ConfigDict(extra="forbid")

    voice_ranking: str | None = "configs/dubbing-voices.yaml"
    separation_threads: int = Field(1, ge=1)
    fitted_voices: bool = True

    @field_validator("voice_ranking")
    @classmethod
    def _path(cls, value: str | None) -> str | None:
        return project_path(value) if value else None


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

    def for_request(self, path: str, content_type: str = "") -> int:
        """The cap of a body sent to ``path`` with ``content_type`` (multipart: an upload)."""
        upload = content_type.split(";")[0].strip().lower().startswith("multipart/")
        path = path.rstrip("/")
        if path.startswith("/v1/video/translate"):
            return self.video_upload_bytes if upload else self.json_bytes
        if path.startswith("/v1/voice/clone"):
            return self.voice_upload_bytes if upload and path == "/v1/voice/clone" else self.small_json_bytes
        if path in ("/v1/game/localization", "/v1/grammar"):
            return self.text_json_bytes
        if path == "/v1/tts":
            return self.tts_json_bytes
        return self.json_bytes


class AsrArgs(EngineSpec):
    """The ASR engine and how long audio is chunked (Ray Data) for it.

    A relative ``options.model_dir`` is taken from the project root.
    """

    @field_validator("options")
    @classmethod
    def _model_dir(cls, options: dict[str, Any]) -> dict[str, Any]:
        if "model_dir" in options:
            options = {**options, "model_dir": project_path(str(options["model_dir"]))}
        return options

    target_chunk_s: float = Field(120.0, gt=0)
    max_chunk_s: float = Field(150.0, gt=0)
    chunk_concurrency: int = Field(2, ge=1)


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
        handle_timeout_s: deadline of a call into a capability deployment.
        translator: translator engine spec; ``None`` serves no translation.
    """

    model_config = ConfigDict(extra="forbid")

    redis_url: str = Field(default_factory=lambda: os.environ.get("REDIS_URL", DEFAULT_REDIS_URL))
    public_base_url: str | None = None
    max_inflight_requests: int = Field(256, ge=1)
    capabilities_refresh_s: float = Field(30.0, gt=0)
    handle_timeout_s: float = Field(60.0, gt=0)
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
