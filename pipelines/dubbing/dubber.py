"""Dub a translated video: speak every line, fit it to its slot, mix it over the background, replace the audio.

Steps (docs/dubbing.md):

1. voices: :func:`pipelines.dubbing.voices.choose_voices` (tier, gender, speakers, fitted voices);
2. synthesis: each line through the TTS deployment at ``dubbing_speed``;
3. time fit, per line in this order: a much-too-long line is translated again
   with a length limit (the translator's ``max_length`` re-ask) and spoken
   again; then a bounded tempo change; then silence borrowed around the slot;
   what still does not fit is cut with a fade (never overlapping the next line);
4. mix: the dub is loudness-normalised (EBU R128, ffmpeg ``loudnorm``) to the
   original speech, and ``dubbing_bg_music`` × the background (mix − the
   DeepFilterNet speech estimate) is kept under it; outside
   ``start_time``/``end_time`` the original audio stays;
5. mux: the video stream is copied, the audio track replaced.

A JSON report tells per line how it was fitted; the pipeline publishes it.
Audio lives in files in the work folder (``soundtrack``): spoken lines, stems
and tracks are never held whole, so memory does not grow with the video.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import soxr

from engines.dubbing import fitting, mux
from engines.translation.base import TranslationHints, TranslationRequest, TranslationResult
from engines.tts.synthesizer import SpeechRequest
from engines.tts.voice_table import VoiceTable
from pipelines.dubbing.line_audio import LineAudio, line_key
from pipelines.dubbing.lines import DubLine
from pipelines.dubbing.own_voices import FitVoice, OwnVoice, fit_own_voices
from pipelines.dubbing.soundtrack import TRACK_RATE, LineFiles, OriginalAudio, Separate, build, original_audio, place
from pipelines.dubbing.voices import FittedVoice, Speaker, VoiceChoice, choose_voices

log = logging.getLogger(__name__)

#: Lines synthesized at once (the TTS deployment decodes one at a time per replica; two keep it busy).
SYNTH_CONCURRENCY = 2
#: Synthesized silence quieter than this (dB under the line's loudest 10 ms) is trimmed, keeping TRIM_KEEP_S.
TRIM_FLOOR_DB, TRIM_KEEP_S = -40.0, 0.03
#: Share of the synthesizing stage spent speaking lines; separation, mixing and the mux take the rest.
SPEAK_SHARE, SEPARATE_SHARE = 0.75, 0.15

Report = Callable[[float], None]
#: ``dubbing_voice`` that fits each speaker's own voice; speakers it cannot fit keep ``default-*``'s voice.
ORIGINAL, ORIGINAL_FALLBACK = "original", "default-female"


@dataclasses.dataclass(frozen=True)
class DubbingDeps:
    """What dubbing calls out to.

    Attributes:
        synthesize: (request, pitch shift in semitones) → (float32 samples, rate) of one line.
        voice_catalogue: language → the TTS voices that speak it (``voice_id``, ``gender``, ...).
        separate: (the processed range of the original track, speech file, background file, report) →
            the two stems as tracks (``separation.separate_track``).
        ranking: measured voice order per language (professional voices).
        fitted_voices: the account's ready fitted voices for a language, with embeddings (None: not used).
        fit_voice: fits a voice to a speaker's speech (``dubbing_voice=original``; None: no cloner deployed).
        line_audio: spoken lines kept for revisions (pipelines/dubbing/line_audio.py; None: not kept).
    """

    synthesize: Callable[[SpeechRequest, float], Awaitable[tuple[np.ndarray, int]]]
    voice_catalogue: Callable[[str], Awaitable[list[dict[str, Any]]]]
    separate: Separate
    ranking: VoiceTable = dataclasses.field(default_factory=VoiceTable)
    fitted_voices: Callable[[str], Awaitable[list[FittedVoice]]] | None = None
    fit_voice: FitVoice | None = None
    line_audio: LineAudio | None = None


@dataclasses.dataclass(frozen=True)
class DubRequest:
    """The task's dubbing parameters and the processed range of the media."""

    voice: str
    speed: float
    bg_music: float
    target_lang: str
    source_lang: str
    start: float
    end: float
    engine: str = "standard"

    @property
    def voice_lang(self) -> str:
        """The language the voices speak (``pt-BR`` → ``pt``)."""
        return self.target_lang.split("-")[0]


@dataclasses.dataclass
class _Spoken:
    """A spoken line, its audio kept in a file (``LineFiles``)."""

    line: DubLine
    audio: tuple[Path, int]
    reasked: bool = False

    @property
    def seconds(self) -> float:
        return self.audio[1] / TRACK_RATE


async def dub(
    request: DubRequest,
    lines: Sequence[DubLine],
    speakers: Sequence[Speaker],
    media: Path,
    workdir: Path,
    deps: DubbingDeps,
    translate: Callable[[TranslationRequest], Awaitable[TranslationResult]],
    report: Report,
    timeout_s: float,
) -> tuple[Path, dict[str, Any]]:
    """The dubbed video (video stream copied) and the per-line report."""
    lang = request.voice_lang
    catalogue = await deps.voice_catalogue(lang)
    fitted = await deps.fitted_voices(lang) if deps.fitted_voices is not None and speakers else []
    original = request.voice == ORIGINAL
    choices = choose_voices(ORIGINAL_FALLBACK if original else request.voice, lang, catalogue, deps.ranking, speakers, fitted)
    # Separation needs only the original audio: it runs while the lines are spoken (TTS works in its own replica).
    extracting = asyncio.create_task(
        original_audio(media, workdir, request.start, request.end, request.bg_music, deps.separate, timeout_s)
    )
    own: dict[str | None, OwnVoice] = {}
    files = LineFiles(workdir / "lines")
    try:
        if original:  # each speaker's own voice is fitted from their speech first (the separated speech if kept)
            speech = (await asyncio.shield(extracting)).speech
            cloned = deps.fit_voice if any(v.get("engine") == "kokoro" for v in catalogue) else None
            own = await fit_own_voices(lines, speakers, speech, TRACK_RATE, request.start, lang, cloned,
                                       lambda f: report(SPEAK_SHARE * 0.2 * f))  # fmt: skip
            choices |= {name: voice.choice for name, voice in own.items() if voice.choice is not None}
        spoken = await _speak_all(request, lines, choices, deps, files, lambda f: report(SPEAK_SHARE * 0.8 * f))
        spoken = await _shorten(request, spoken, choices, deps, files, translate)
        report(SPEAK_SHARE)
        slots = [fitting.Slot(s.line.start, s.line.end) for s in spoken]
        fits = fitting.plan(slots, [s.seconds for s in spoken], request.end, media_start=request.start)
        clips = await asyncio.to_thread(place, [s.audio for s in spoken], fits, request.start, files.folder, timeout_s)
        source: OriginalAudio = await extracting
    finally:
        extracting.cancel()
    report(SPEAK_SHARE + SEPARATE_SHARE)

    wav, levels = await asyncio.to_thread(build, clips, source, request.start, request.end, request.bg_music, workdir, timeout_s)
    video = await asyncio.to_thread(mux.replace_audio, media, wav, workdir / "dubbed.mp4", timeout_s=timeout_s)
    return video, _report(request, spoken, fits, choices, levels, own)


async def _speak_all(
    request: DubRequest,
    lines: Sequence[DubLine],
    choices: Mapping[str | None, VoiceChoice],
    deps: DubbingDeps,
    files: LineFiles,
    report: Report,
) -> list[_Spoken]:
    gate = asyncio.Semaphore(SYNTH_CONCURRENCY)
    done = 0

    async def one(line: DubLine) -> _Spoken:
        nonlocal done
        async with gate:
            audio = await _speak(request, line.text, choices.get(line.speaker) or choices[None], deps)
        done += 1
        report(done / max(len(lines), 1))
        return _Spoken(line, files.keep(audio))

    return list(await asyncio.gather(*(one(line) for line in lines)))


async def _speak(request: DubRequest, text: str, choice: VoiceChoice, deps: DubbingDeps) -> np.ndarray:
    speech = SpeechRequest(
        text=text, lang=request.voice_lang, voice=choice.voice, style=choice.style, gender=choice.gender,
        speed=request.speed, output_format="wav",
    )  # fmt: skip
    key = None
    if deps.line_audio is not None:
        key = line_key(text, choice.voice, choice.style, choice.gender, choice.semitones, request.speed, request.voice_lang)
        kept = await deps.line_audio.get(key, TRACK_RATE)
        if kept is not None:
            return kept
    audio, rate = await deps.synthesize(speech, choice.semitones)
    audio = trim_silence(np.asarray(audio, np.float32), rate)
    audio = audio if rate == TRACK_RATE else soxr.resample(audio, rate, TRACK_RATE).astype(np.float32)
    if key is not None and deps.line_audio is not None:
        await deps.line_audio.put(key, audio, TRACK_RATE)
    return audio


def trim_silence(audio: np.ndarray, rate: int, floor_db: float = TRIM_FLOOR_DB, keep_s: float = TRIM_KEEP_S) -> np.ndarray:
    """``audio`` without the synthesizer's leading and trailing silence (``keep_s`` of it kept), so a line
    placed at its cue is heard at its cue and its measured length is its speech."""
    if not len(audio):
        return audio
    frame = max(1, rate // 100)
    usable = len(audio) // frame * frame
    if not usable:
        return audio
    rms = np.sqrt(np.mean(audio[:usable].reshape(-1, frame) ** 2, axis=1) + 1e-12)
    loud = np.flatnonzero(20 * np.log10(rms / (rms.max() + 1e-12)) > floor_db)
    if not len(loud):
        return audio
    keep = int(keep_s * rate)
    return audio[max(0, loud[0] * frame - keep) : min(len(audio), (loud[-1] + 1) * frame + keep)]


async def _shorten(
    request: DubRequest,
    spoken: list[_Spoken],
    choices: Mapping[str | None, VoiceChoice],
    deps: DubbingDeps,
    files: LineFiles,
    translate: Callable[[TranslationRequest], Awaitable[TranslationResult]],
) -> list[_Spoken]:
    """Lines much too long for their slot are translated again with a length limit and spoken again."""
    for i, fraction in _needs_shorter(request, spoken).items():
        item = spoken[i]
        limit = max(4, int(len(item.line.text) * fraction))
        hints = TranslationHints(mode=request.engine, max_length=limit)
        context = tuple(s.line.source for s in spoken[max(0, i - 2) : i])
        ask = TranslationRequest((item.line.source,), request.source_lang, request.target_lang, context=context, hints=hints)
        try:
            text = (await translate(ask)).texts[0].strip()
        except Exception as exc:  # the longer line is still a line: tempo and borrowing fit what they can
            log.warning("shorter rendering of line %d failed: %s", item.line.index, exc)
            continue
        if not text or len(text) >= len(item.line.text):
            continue
        audio = await _speak(request, text, choices.get(item.line.speaker) or choices[None], deps)
        if len(audio) < item.audio[1]:
            spoken[i] = _Spoken(dataclasses.replace(item.line, text=text), files.keep(audio), reasked=True)
    return spoken


def _needs_shorter(request: DubRequest, spoken: Sequence[_Spoken]) -> dict[int, float]:
    """Lines to translate again → the fraction of their length to ask for: much too long for their slot,
    or cut short by the plan once the neighbours took their share of the silence."""
    slots = [fitting.Slot(s.line.start, s.line.end) for s in spoken]
    natural = [s.seconds for s in spoken]
    fits = fitting.plan(slots, natural, request.end, media_start=request.start)
    out: dict[int, float] = {}
    for i, fit in enumerate(fits):
        fraction = fitting.too_long(natural[i], slots, i, request.end, media_start=request.start)
        if fraction is None and fit.truncated_s > 0:
            kept = (fit.end - fit.start) * fit.tempo / max(natural[i], 1e-6)
            fraction = min(fitting.MAX_REASK_FRACTION, max(fitting.MIN_REASK_FRACTION, 0.95 * kept))
        if fraction is not None:
            out[i] = fraction
    return out


def _report(
    request: DubRequest,
    spoken: Sequence[_Spoken],
    fits: Sequence[fitting.Fit],
    choices: Mapping[str | None, VoiceChoice],
    levels: Mapping[str, float | None],
    own: Mapping[str | None, OwnVoice],
) -> dict[str, Any]:
    voices = {name or "default": choice.public() for name, choice in choices.items()}
    for name, voice in own.items():
        voices[name or "default"]["own_voice"] = voice.public()
    return {
        "target_lang": request.target_lang,
        "dubbing_voice": request.voice,
        "dubbing_speed": request.speed,
        "dubbing_bg_music": request.bg_music,
        "bounds": {"max_tempo": fitting.MAX_TEMPO, "max_lead_s": fitting.MAX_LEAD_S, "min_gap_s": fitting.MIN_GAP_S},
        "loudness": dict(levels),
        "voices": voices,
        "lines": [_line(item, fit) for item, fit in zip(spoken, fits)],
    }


def _line(item: _Spoken, fit: fitting.Fit) -> dict[str, Any]:
    return {
        "index": item.line.index,
        "speaker": item.line.speaker,
        "cue_start": round(item.line.start, 3),
        "cue_end": round(item.line.end, 3),
        "start": round(fit.start, 3),
        "end": round(fit.end, 3),
        "text": item.line.text,
        "method": fit.method,
        "reasked": item.reasked,
        "natural_s": round(fit.natural_s, 3),
        "tempo": round(fit.tempo, 3),
        "borrowed_before_s": round(fit.borrowed_before_s, 3),
        "borrowed_after_s": round(fit.borrowed_after_s, 3),
        "truncated_s": round(fit.truncated_s, 3),
    }
