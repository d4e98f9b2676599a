"""Typed response records (contract section 2). Unknown fields are kept, so newer servers never break parsing."""

from __future__ import annotations

from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, model_validator

FINAL_TASK_STATES = frozenset({"completed", "failed", "expired"})


class ApiModel(BaseModel):
    model_config = ConfigDict(extra="allow")


class TaskResult(ApiModel):
    """The ``result`` of a completed video task (contract 2.1)."""

    subtitle_url: str | None = None
    video_url: str | None = None
    files: dict[str, str] | None = None
    duration: float | None = None
    char_count: int | None = None
    source_lang: str | None = None
    #: The timed-text quality report (extension): preset, cue count, cues breaking a rule, per rule.
    qc: dict[str, Any] | None = None

    def qc_summary(self) -> str | None:
        """One line: how many cues break a rule of their preset, and which rules (None without a report)."""
        if not self.qc:
            return None
        preset = self.qc.get("preset") or {}
        cues, failing = int(self.qc.get("cues") or 0), int(self.qc.get("failing") or 0)
        share = f"{100 * failing / cues:.1f} %" if cues else "0 %"
        rules = ", ".join(f"{rule} {n}" for rule, n in sorted((self.qc.get("rules") or {}).items()) if n)
        head = f"{preset.get('name', '?')} {preset.get('language', '')}".strip()
        return f"{head}: {failing} of {cues} cues ({share}) break a rule" + (f" ({rules})" if rules else "")

    def download_urls(self) -> dict[str, str]:
        """Every result link, by a short name: ``subtitle``, ``video`` and the keys of ``files``."""
        urls: dict[str, str] = {}
        if self.subtitle_url:
            urls["subtitle"] = self.subtitle_url
        if self.video_url:
            urls["video"] = self.video_url
        for kind, url in (self.files or {}).items():
            if url and url not in urls.values():
                urls[kind] = url
        return urls


class AdditionalTask(ApiModel):
    """A task of ``additional_target_langs`` (extension): its language and id, in the submission's answer."""

    target_lang: str
    task_id: str


class Task(ApiModel):
    """A video translation task (contract 2.1); also the answer of ``POST /v1/video/translate`` and
    ``POST /v1/subtitles/translate``."""

    task_id: str
    status: str
    progress: int | None = None
    stage: str | None = None
    estimated_seconds: int | None = None
    created_at: str | None = None
    completed_at: str | None = None
    result: TaskResult | None = None
    error: Any = None
    parent_task_id: str | None = None  # a revision or an added language: the task it was made from
    revision: int | None = None  # a revision: its place in the chain (1, 2...); 0 for a task that recognized the video
    additional_tasks: list[AdditionalTask] | None = None  # a submission with additional_target_langs: a task per language

    @property
    def is_final(self) -> bool:
        return self.status in FINAL_TASK_STATES


class TranscriptSegment(ApiModel):
    """One translated sentence of a transcript: its span (seconds), speaker, recognized text and translation."""

    id: str
    start: float
    end: float
    speaker: str | None = None  # diarized tasks only
    source: str
    translation: str
    dubbing: dict[str, Any] | None = None  # dubbed tasks only: how the line was fitted (start, end, tempo...)


class Transcript(ApiModel):
    """``GET /v1/video/task/{task_id}/transcript``: what a completed task rendered, segment by segment."""

    task_id: str
    parent_task_id: str | None = None
    revision: int | None = None
    source_lang: str | None = None
    target_lang: str | None = None
    duration: float | None = None
    speakers: list[str] | None = None  # diarized tasks only
    segments: list[TranscriptSegment]


class SegmentEdit(ApiModel):
    """A change to one transcript segment (``video.revise``): its ``id`` and at least one other field.

    ``source`` is translated again; ``translation`` is used as given; times are seconds on the video.
    """

    id: str
    source: str | None = None
    translation: str | None = None
    speaker: str | None = None
    start: float | None = None
    end: float | None = None


class Language(ApiModel):
    """One language record (contract 2.3)."""

    code: str
    name: str | None = None
    name_en: str | None = None
    supports_formality: bool | None = None
    supports_glossary: bool | None = None
    supports_speech: bool | None = None
    supports_ocr: bool | None = None
    supports_document: bool | None = None
    variants: list[str] | None = None


class LanguageList(ApiModel):
    languages: list[Language]
    total: int

    def codes(self) -> list[str]:
        return [language.code for language in self.languages]


class Voice(ApiModel):
    """A cloned voice (contract 2.2)."""

    voice_id: str
    voice_name: str | None = None
    lang: str | None = None
    quality_score: float | None = None
    status: str | None = None
    description: str | None = None
    sample_duration: float | None = None
    created_at: str | None = None
    completed_at: str | None = None
    gender: str | None = None
    error: Any = None


class VoiceList(ApiModel):
    voices: list[Voice]
    total: int
    quota: int | None = None
    used: int | None = None
    next_cursor: str | None = None


class GrammarIssue(ApiModel):
    type: str
    offset: int
    length: int
    wrong: str | None = None
    correct: str | None = None
    severity: str | None = None
    message: str | None = None
    rule_id: str | None = None


class GrammarResult(ApiModel):
    """Answer of ``POST /v1/grammar`` (contract 2.5)."""

    original: str
    corrected: str | None = None
    issues: list[GrammarIssue] = []
    issues_count: int = 0
    lang: str | None = None
    quality_score: float | None = None


class LocalizationResult(ApiModel):
    """Answer of ``POST /v1/game/localization`` (contract 2.4)."""

    original: str
    translations: dict[str, str]
    content_type: str | None = None
    genre: str | None = None
    tone: str | None = None
    shortened: list[str] | None = None  # extension: targets cut to fit max_length
    #: extension: per target, the indices of the text's lines answered from the request's ``memory_id`` verbatim
    from_memory: dict[str, list[int]] | None = None


class NativeVoice(ApiModel):
    """A built-in TTS voice (``GET /v1/tts/voices``)."""

    voice_id: str
    name: str | None = None
    languages: list[str] | None = None
    gender: str | None = None
    engine: str | None = None
    sample_rate: int | None = None


class NativeVoiceList(ApiModel):
    voices: list[NativeVoice]
    total: int
    languages: list[str] = []  # the languages some native voice speaks


class AccountInfo(ApiModel):
    """``GET /v1/account``: the token's account, its limits and usage (fields beyond the contract kept as extras)."""

    account_id: str
    name: str | None = None
    rate_limit_per_minute: int | None = None
    rate_limit_burst: int | None = None
    quotas: dict[str, int] = {}
    usage: dict[str, int] = {}
    period: str | None = None


class MemoryEntry(ApiModel):
    """One pair of a translation memory: a source segment and its approved translation."""

    source: str
    target: str


class Memory(ApiModel):
    """A translation memory (extension, ``/v1/memories``): approved pairs of one language pair.

    ``entries`` and ``next_cursor`` (the cursor of the next page of entries) come only with ``memories.get``.
    """

    memory_id: str
    name: str | None = None
    description: str | None = None
    source_lang: str | None = None
    target_lang: str | None = None
    entry_count: int | None = None
    revision: int | None = None  # grows by one with every change of the entries
    bytes: int | None = None  # stored size, as the account's memory caps count it
    created_at: str | None = None
    updated_at: str | None = None
    entries: list[MemoryEntry] | None = None
    next_cursor: str | None = Field(None, validation_alias=AliasChoices("next_cursor", "entries_next_cursor"))


class MemoryList(ApiModel):
    """``GET /v1/memories``: one page of the account's memories (without their entries)."""

    memories: list[Memory]
    total: int | None = None
    next_cursor: str | None = None


class MemoryEntriesResult(ApiModel):
    """The answer of a change to a memory's entries: the counts the service gives (``added``, ``replaced``,
    ``unchanged``; or ``deleted``) and the record.

    ``memory`` is the record whether the service nests it, sends its fields beside the counts, or sends it alone
    (replacing every entry).
    """

    added: int | None = None
    replaced: int | None = None
    unchanged: int | None = None
    deleted: int | None = None
    memory: Memory | None = None

    @model_validator(mode="before")
    @classmethod
    def _nest_the_record(cls, data: Any) -> Any:
        if isinstance(data, dict) and "memory" not in data and "memory_id" in data:
            counts = {"added", "replaced", "unchanged", "deleted"}
            return {**data, "memory": {k: v for k, v in data.items() if k not in counts}}
        return data
