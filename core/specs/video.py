"""The video translation job spec: one typed model from the route to Redis to the pipeline.

:class:`VideoOptions` holds every parameter of contract 4.1 with its default
and limit, written once here: the HTTP form model extends it, the task record
stores a :class:`VideoJobSpec` (options plus the resolved source and glossary
snapshot) as JSON, and the pipeline reads that same model back. The subtitle
layout and style defaults of ``pipelines.subtitles`` are these constants too.
Adding a parameter means adding one field here.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from core.specs.languages import CODE_OR_AUTO, LANGUAGE_CODE, LanguageCode
from core.specs.revision_of import RevisionOf
from core.specs.steering import SteeringOptions
from core.specs.translation_of import TranslationOf
from engines.media.probe import MAX_BYTES, MAX_DURATION_S
from engines.translation.glossary import Glossary

#: Contract limits of a source video.
MAX_VIDEO_BYTES = MAX_BYTES
MAX_VIDEO_SECONDS = MAX_DURATION_S

DEFAULT_FONT = "PingFang SC"
DEFAULT_FONT_SIZE = 24
FONT_SIZE_RANGE = (8, 120)
DEFAULT_TEXT_COLOR = "#FFFFFF"
DEFAULT_OUTLINE_COLOR = "#000000"
DEFAULT_OUTLINE_WIDTH = 2.0
OUTLINE_WIDTH_RANGE = (1.0, 4.0)
Position = Literal["bottom", "top", "middle"]
POSITIONS: tuple[str, ...] = get_args(Position)
DEFAULT_POSITION: Position = "bottom"
DEFAULT_MAX_LINE_CHARS = 42
LINE_CHARS_RANGE = (10, 120)
DEFAULT_CUE_SECONDS = 5.0
CUE_SECONDS_RANGE = (2.0, 10.0)
SPEAKER_COUNT_RANGE = (1, 32)

#: The contract's five, and the timed-text delivery formats (extensions): IMSC 1.1 Text TTML and EBU-TT-D.
OutputFormat = Literal["srt", "vtt", "ass", "burned_video", "all", "ttml", "ebu_tt_d"]
#: Subtitle files of ``all``: the contract's three, then the extensions (extra keys of ``files``).
ALL_SUBTITLE_FORMATS = ("srt", "vtt", "ass", "ttml", "ebu_tt_d")
#: Timed-text presets (docs/timed-text.md): per-language limits and frame rules, slower broadcast
#: reading speeds, or the single preset of earlier versions.
SubtitlePreset = Literal["standard", "broadcast", "legacy"]
#: Layout fields whose explicit value wins over the preset (the preset applies when they are omitted).
LAYOUT_FIELDS = ("max_subtitle_length", "subtitle_max_duration")
#: The contract's four, and ``original`` (an extension): each speaker dubbed in a voice fitted from their own speech.
DubbingVoice = Literal["default-female", "default-male", "professional-female", "professional-male", "original"]

_HEX = r"#([0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})"
#: A font family name: no control characters (an ASS line break), no ASS/filter syntax.
_FONT = r"^[^,{}\\\x00-\x1f\x7f]+$"


def _font_name(value: str) -> str:
    if not re.fullmatch(_FONT, value):
        raise ValueError("must be a font family name without control characters, commas, braces or backslashes")
    return value


#: ``subtitle_font``: validated with a readable message; the pattern is published for clients.
FontName = Annotated[str, Field(min_length=1, max_length=64, json_schema_extra={"pattern": _FONT}), AfterValidator(_font_name)]


class VideoOptions(SteeringOptions):
    """The parameters of ``POST /v1/video/translate`` (contract 4.1), validated, and the steering extensions
    (:class:`core.specs.steering.SteeringOptions`)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    target_lang: LanguageCode = Field(description="Target language code (see /v1/languages).")
    source_lang: str | None = Field(
        None,
        max_length=16,
        description="Spoken language; omitted or auto: detected.",
        json_schema_extra={LANGUAGE_CODE: CODE_OR_AUTO},
    )
    output_format: OutputFormat = "srt"
    bilingual: bool = False
    engine: Literal["standard", "professional"] = "standard"
    callback_url: str | None = Field(None, max_length=4096)
    glossary_id: str | None = Field(None, max_length=64)
    subtitle_font: FontName = DEFAULT_FONT
    subtitle_size: int = Field(
        DEFAULT_FONT_SIZE, ge=FONT_SIZE_RANGE[0], le=FONT_SIZE_RANGE[1], description="Pixels; 18 to 36 recommended."
    )
    subtitle_color: str = Field(DEFAULT_TEXT_COLOR, pattern=f"^{_HEX}$")
    subtitle_outline: str = Field(DEFAULT_OUTLINE_COLOR, pattern=f"^$|^{_HEX}$", description="Empty: no stroke.")
    subtitle_outline_width: float = Field(DEFAULT_OUTLINE_WIDTH, ge=OUTLINE_WIDTH_RANGE[0], le=OUTLINE_WIDTH_RANGE[1])
    subtitle_bg: str = Field("none", pattern=f"^none$|^{_HEX}$", description="none, or a box colour with alpha.")
    subtitle_position: Position = DEFAULT_POSITION
    enable_dubbing: bool = False
    dubbing_voice: DubbingVoice = "default-female"
    dubbing_speed: float = Field(1.0, ge=0.5, le=2.0)
    dubbing_bg_music: float = Field(0.3, ge=0.0, le=1.0)
    enable_diarization: bool = False
    speaker_count: int | None = Field(
        None, ge=SPEAKER_COUNT_RANGE[0], le=SPEAKER_COUNT_RANGE[1], description="Omitted or auto: detected."
    )
    max_subtitle_length: int = Field(
        DEFAULT_MAX_LINE_CHARS,
        ge=LINE_CHARS_RANGE[0],
        le=LINE_CHARS_RANGE[1],
        description="Characters per line. Omitted: the target language's preset (42; 16 zh/ko, 13 ja, 35 th).",
    )
    subtitle_max_duration: float = Field(
        DEFAULT_CUE_SECONDS,
        ge=CUE_SECONDS_RANGE[0],
        le=CUE_SECONDS_RANGE[1],
        description="Longest cue in seconds. Omitted: the preset's (7.0; 5.0 with subtitle_preset=legacy).",
    )
    subtitle_preset: SubtitlePreset = Field(
        "standard",
        description="Extension: standard (per-language Netflix limits, frame-accurate timing), broadcast "
        "(160-180 words per minute, 37-character lines) or legacy (42 characters, 20 per second everywhere).",
    )
    profanity_filter: bool = False
    start_time: float = Field(0.0, ge=0.0, le=MAX_VIDEO_SECONDS)
    end_time: float | None = Field(None, gt=0.0, le=MAX_VIDEO_SECONDS)

    @model_validator(mode="after")
    def _range(self) -> VideoOptions:
        if self.end_time is not None and self.end_time <= self.start_time:
            raise ValueError("end_time must be greater than start_time")
        return self

    @property
    def subtitle_formats(self) -> tuple[str, ...]:
        """Subtitle files this task produces."""
        if self.output_format == "all":
            return ALL_SUBTITLE_FORMATS
        if self.output_format == "burned_video":
            return ()
        return (self.output_format,)

    @property
    def burns(self) -> bool:
        return self.output_format in ("burned_video", "all")

    @property
    def speed_kind(self) -> str:
        """Which measured speed estimates this task (dubbing, then burning, are the slow parts)."""
        if self.enable_dubbing:
            return "dub"
        return "burn" if self.burns else "subtitles"


class UploadSource(BaseModel):
    """A file uploaded with the request, kept in the file store under ``key``."""

    kind: Literal["upload"] = "upload"
    key: str
    filename: str = ""
    size: int = 0


class SubtitleSource(BaseModel):
    """A subtitle file uploaded to ``POST /v1/subtitles/translate``, kept in the file store under ``key``: the
    task translates its cues, and there is no video (docs/subtitle-translation.md)."""

    kind: Literal["subtitles"] = "subtitles"
    key: str
    filename: str = ""
    size: int = 0


class UrlSource(BaseModel):
    """A ``video_url`` the worker fetches (and checks again) when it runs the task."""

    kind: Literal["url"] = "url"
    url: str


class GlossaryEntry(BaseModel):
    source: str
    target: str


class GlossarySnapshot(BaseModel):
    """The glossary as it was at submission: later edits do not change a submitted task."""

    glossary_id: str
    source_lang: str
    target_lang: str
    entries: list[GlossaryEntry]
    case_sensitive: bool

    def engine_glossary(self) -> Glossary:
        return Glossary(self.source_lang, self.target_lang, {e.source: e.target for e in self.entries}, self.case_sensitive)


#: Where a task's input is: an uploaded video, a video URL, or an uploaded subtitle file.
MediaSource = UploadSource | UrlSource | SubtitleSource


class VideoJobSpec(VideoOptions):
    """What a video task stores and its worker runs: options with canonical languages, the source, the glossary.

    Attributes:
        media_seconds: the probed duration of an upload (charged at submission);
            None for a URL, whose minutes are charged when the worker has probed it.
    """

    # Stored records are read back by newer workers: fields they no longer know are ignored.
    model_config = ConfigDict(extra="ignore")

    source: Annotated[UploadSource | UrlSource | SubtitleSource, Field(discriminator="kind")]
    glossary: GlossarySnapshot | None = None
    media_seconds: float | None = None
    #: Layout fields (``LAYOUT_FIELDS``) the request gave: their values win over the preset's.
    explicit_layout: list[str] = Field(default_factory=list)
    #: A revision's parent and edits; None for a task that recognizes.
    revision: RevisionOf | None = None
    #: An added language's parent (docs/video-languages.md); None for a task that recognizes.
    translation_of: TranslationOf | None = None
    #: The video's own source-language subtitles (``subtitle_file``), used instead of recognition; None: recognized.
    subtitles: SubtitleSource | None = None
    #: Tasks of ``additional_target_langs`` (docs/video-languages.md): held until this task's recognition is stored.
    dependents: list[str] = Field(default_factory=list)

    @property
    def burns(self) -> bool:
        """As the options'; a subtitle file has no video to burn (``all`` is its subtitle formats)."""
        return super().burns and not isinstance(self.source, SubtitleSource)

    @property
    def speed_kind(self) -> str:
        """As the options', measured apart for added languages (they skip extraction and recognition) and subtitle
        files (translation alone)."""
        if isinstance(self.source, SubtitleSource):
            return "subtitle-file"
        kind = super().speed_kind
        return f"added-{kind}" if self.translation_of is not None or self.subtitles is not None else kind

    @property
    def recognizes(self) -> bool:
        """Whether the task recognizes its video; revisions, added languages and subtitle files render a
        stored or uploaded transcript."""
        no_recognition = self.subtitles is not None or isinstance(self.source, SubtitleSource)
        return self.revision is None and self.translation_of is None and not no_recognition

    def stored(self) -> dict[str, Any]:
        """The JSON-ready form kept in the task record."""
        return self.model_dump(mode="json")


def billable_minutes(seconds: float | None) -> int:
    """Minutes charged to the ``video_minutes`` quota for media this long (started minutes; 0 when unknown)."""
    return max(1, math.ceil(seconds / 60)) if seconds else 0


def processed_seconds(options: VideoOptions, duration: float | None) -> float | None:
    """Seconds of the media a task works on: ``start_time`` to ``end_time`` (or the end)."""
    if duration is None:
        return None
    end = min(options.end_time, duration) if options.end_time is not None else duration
    return max(0.0, end - options.start_time)


def feature_charges(options: VideoOptions, duration: float | None) -> list[tuple[str, int]]:
    """Extra usage of a task's features, on top of ``video_minutes`` (docs/billing.md).

    Diarization and the professional engine are counted in started minutes of the processed range;
    dubbing in started seconds of dubbed audio (the processed range, whose whole audio track is
    replaced), separately for standard and professional voices.
    """
    seconds = processed_seconds(options, duration)
    if not seconds:
        return []
    charges: list[tuple[str, int]] = []
    if options.enable_diarization:
        charges.append(("diarization_minutes", billable_minutes(seconds)))
    if options.engine == "professional":
        charges.append(("professional_minutes", billable_minutes(seconds)))
    if options.enable_dubbing:
        charges.append((dubbing_metric(options.dubbing_voice), max(1, math.ceil(seconds))))
    return charges


def dubbing_metric(voice: str) -> str:
    """The quota dubbed seconds count toward: ``professional-*`` and ``original`` voices are professional."""
    professional = voice.startswith("professional") or voice == "original"
    return "dubbing_professional_seconds" if professional else "dubbing_seconds"
