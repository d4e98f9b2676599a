"""Typed arguments of the capability deployments (``translator:``, ``asr:``, ``grammar:``... in configs/*.yaml).

Each names its engines as ``EngineSpec``s: the engine's own options model
(``engines/options.py``) validates the ``options:`` mapping when the
application is built, so a misspelled or out-of-range key fails ``serve deploy``
with a message naming the engine and the key, and relative model paths arrive
absolute. Deployments validate the same models again and read typed fields.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, field_validator, model_validator

from core.paths import PROJECT_ROOT, project_path
from engines.grammar.checker import DEFAULT_CHUNK_CHARS, DEFAULT_WORKERS
from engines.options import EngineOptions
from engines.registry import engine_options


class EngineSpec(BaseModel):
    """Which engine a capability deployment wraps, and its options, typed by the engine."""

    model_config = ConfigDict(extra="forbid")

    engine: str = Field(description="Registry name (engines/registry.py).")
    options: SerializeAsAny[EngineOptions] = Field(default_factory=EngineOptions)

    @model_validator(mode="before")
    @classmethod
    def _typed_options(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("engine"), str):
            options = engine_options(data["engine"], data.get("options")).resolved(PROJECT_ROOT)
            data = {**data, "options": options}
        return data


class PivotSpec(BaseModel):
    """A pivot route: ``first`` translates into ``via``, ``second`` from ``via`` into one of ``targets``."""

    model_config = ConfigDict(extra="forbid")

    via: str = Field(min_length=2, description="The pivot language (API code).")
    first: str = Field(description="Engine (one of the translator's) for source → via.")
    second: str = Field(description="Engine (one of the translator's) for via → target.")
    targets: list[str] = Field(min_length=1, description="Target languages this route may serve.")

    @property
    def name(self) -> str:
        """The engine name the routing table scores it under (``llm>sv>apertium``)."""
        return f"{self.first}>{self.via}>{self.second}"


class TranslatorArgs(BaseModel):
    """The translator's engines and how pairs are routed among them (docs/translation-routing.md).

    ``engines`` are routed by the measured ``routing`` table when given, else
    tried in order. The shorthand ``engine`` + ``options`` + ``fallback`` is
    read as ``engines: [engine, fallback]``.
    """

    model_config = ConfigDict(extra="forbid")

    engines: list[EngineSpec] = Field(min_length=1)
    routing: str | None = Field(None, description="Routing table (YAML) written by calibration/score_engines.py.")
    floor: float | None = Field(None, ge=0, le=100, description="chrF floor; default: the table's own.")
    pivots: list[PivotSpec] = Field(
        default_factory=list, description="Routes through a third language; offered only where the table scores them."
    )

    @model_validator(mode="after")
    def _pivot_legs_exist(self) -> TranslatorArgs:
        names = {spec.engine for spec in self.engines}
        for pivot in self.pivots:
            missing = {pivot.first, pivot.second} - names
            if missing:
                raise ValueError(f"pivot {pivot.name}: {', '.join(sorted(missing))} is not one of the translator's engines")
        return self

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "engine" not in data:
            return data
        if data.get("engines"):
            raise ValueError("give either `engine` (+ `fallback`) or `engines`, not both")
        data = dict(data)
        first = {"engine": data.pop("engine"), "options": data.pop("options", None) or {}}
        fallback = data.pop("fallback", None)
        return {**data, "engines": [first, fallback] if fallback else [first]}

    @field_validator("routing")
    @classmethod
    def _routing_path(cls, value: str | None) -> str | None:
        return project_path(value) if value else None


class GrammarArgs(BaseModel):
    """The Grammar deployment: its engines (run together, answers merged) and how long texts are split."""

    model_config = ConfigDict(extra="forbid")

    engines: list[EngineSpec] = Field(min_length=1)
    chunk_chars: int = Field(
        DEFAULT_CHUNK_CHARS, ge=200, description="Long texts are checked in chunks of whole sentences this long."
    )
    workers: int = Field(DEFAULT_WORKERS, ge=1, description="Threads that check chunks and engines at once.")


class TtsArgs(BaseModel):
    """The TTS deployment: its engines (in order of preference) and per-language default engines."""

    model_config = ConfigDict(extra="forbid")

    engines: list[EngineSpec] = Field(min_length=1)
    defaults: dict[str, str] = Field(
        default_factory=dict, description="Language → engine for requests without a voice; else the first engine speaking it."
    )
    voice_table: str | None = Field(
        "configs/voices.yaml",
        description="Measured default voice per language and gender (calibration/score_voices.py); it wins over `defaults`.",
    )

    @field_validator("voice_table")
    @classmethod
    def _table_path(cls, value: str | None) -> str | None:
        return project_path(value) if value else None


class VoiceClonerArgs(EngineSpec):
    """The VoiceCloner deployment: one cloning engine (``kokoro-fit`` on CPU, ``xtts-clone`` in the cluster)."""

    sample_timeout_s: float = Field(60.0, gt=0, description="Deadline of fetching a sample URL.")
    sync_timeout_s: float = Field(120.0, gt=0, description="Deadline of a synchronous clone.")


class DiarizerArgs(EngineSpec):
    """The Diarizer deployment: ``embedded-diarizer`` (Silero VAD + VoiceFilter d-vectors) on CPU, ``pyannote`` on GPU."""


class AsrArgs(EngineSpec):
    """The ASR engine and how long audio is chunked (Ray Data) for it."""

    target_chunk_s: float = Field(120.0, gt=0, description="Long audio is cut at silences near this length.")
    max_chunk_s: float = Field(150.0, gt=0, description="No chunk is longer than this.")
    chunk_concurrency: int = Field(2, ge=1, description="Chunks in flight at once (ASR replicas take them).")


class DubbingArgs(BaseModel):
    """AI dubbing in video tasks (docs/dubbing.md); needs the TTS deployment."""

    model_config = ConfigDict(extra="forbid")

    voice_ranking: str | None = Field(
        "configs/voices.yaml",
        description="Measured voice order per language (professional voices), written by calibration/score_voices.py.",
    )
    separation_threads: int = Field(1, ge=1, description="libDF states separating speech from background at once.")
    fitted_voices: bool = Field(True, description="Use an account's fitted voice for a diarized speaker it matches.")

    @field_validator("voice_ranking")
    @classmethod
    def _path(cls, value: str | None) -> str | None:
        return project_path(value) if value else None
