"""The video translation pipeline: source → probe → audio → ASR → cues → translation → outputs.

Pure orchestration over injected dependencies (:class:`PipelineDeps`): the
job runner wires Serve handles, Ray Data chunking and the file store in;
tests wire engines directly. Each stage reports progress with the
contract's stage names; failures raise engine errors that the runner turns
into the task's ``error`` (``UNSUPPORTED_VIDEO``, ``NO_AUDIO_TRACK``, …).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from core.specs.transcript import TRANSCRIPT_NAME, StoredTranscript
from core.specs.video import MediaSource, UploadSource, VideoJobSpec
from engines.asr.audio import SAMPLE_RATE, load_audio
from engines.asr.types import Transcript
from engines.capabilities import translates
from engines.diarization.assign import assign_speakers
from engines.diarization.base import Diarization
from engines.errors import EngineUnavailable, InvalidInput, UnsupportedLanguage
from engines.media.ffmpeg import extract_audio
from engines.media.probe import MediaInfo, check_renderable, probe, validate
from engines.media.scenes import detect_shot_changes
from engines.translation.base import TranslationRequest, TranslationResult
from engines.translation.glossary import Glossary
from pipelines.dubbing.dubber import DubbingDeps, DubRequest, dub
from pipelines.dubbing.lines import display_names
from pipelines.dubbing.voices import Speaker
from pipelines.early_translation import EarlyTranslation
from pipelines.progress import Progress
from pipelines.subtitle_layout import Layout, layout_of
from pipelines.transcript_store import dubbing_by_segment, to_stored, words_by_segment
from pipelines.transcript_translation import TranslatedTranscript, job_glossary, start_early, translate_transcript
from pipelines.video_outputs import add_dub, publish_outputs, render_outputs, write_file

DETECT_WINDOW_S = 30.0
#: Frame rates timing trusts; a container stating another (a time base taken for a rate) is timed at 24 fps.
MIN_FPS, MAX_FPS = 5.0, 300.0
log = logging.getLogger(__name__)


class Transcribe(Protocol):
    def __call__(
        self,
        audio: np.ndarray,
        language: str,
        offset: float,
        report: Callable[[float], None],
        *,
        on_prefix: Callable[[Transcript, float], None] | None = None,
    ) -> Awaitable[Transcript]: ...


@dataclasses.dataclass(frozen=True)
class PipelineDeps:
    """Everything the pipeline calls out to.

    Attributes:
        obtain: the task's source → local media path (a stored upload or a fetched URL).
        admit: called with the probed media before any heavy work; raises to
            refuse it (e.g. the minutes do not fit the account's quota).
        detect_language: speech sample → (API code, probability).
        transcribe: (audio, language, offset, on_fraction, on_prefix=) → transcript on the file's
            timeline; ``on_prefix(transcript, until)`` (optional, called on the event loop) gets each
            recognized prefix of a chunked recording as it grows.
        translate: request + optional glossary → result.
        pairs: the translator's (source, target) pairs.
        publish: (local file, download name, content type) → signed URL.
        timeout_s: deadline of each ffmpeg step.
        summarize: (transcript sentences, language) → a short English summary, for
            ``engine=professional`` (None when no LLM is configured).
        diarize: (audio, speaker_count, offset, on_fraction) → speaker turns of the whole recording
            (None: no diarizer deployed).
        dubbing: what dubbing calls out to (None: no TTS deployed).
        load_transcript: task id → its stored transcript, or None when it is gone (revisions).
        memory_report: what the task's translation memory answered (the result's ``memory``; None without one).
    """

    obtain: Callable[[MediaSource, Path], Awaitable[Path]]
    admit: Callable[[MediaInfo], Awaitable[None]]
    detect_language: Callable[[np.ndarray], Awaitable[tuple[str, float]]]
    transcribe: Transcribe
    translate: Callable[[TranslationRequest, Glossary | None], Awaitable[TranslationResult]]
    pairs: Callable[[], Awaitable[frozenset[tuple[str, str]]]]
    publish: Callable[[Path, str, str], Awaitable[str]]
    timeout_s: float
    summarize: Callable[[list[str], str], Awaitable[str | None]] | None = None
    diarize: Callable[[np.ndarray, int | None, float, Callable[[float], None]], Awaitable[Diarization]] | None = None
    dubbing: DubbingDeps | None = None
    load_transcript: Callable[[str], Awaitable[StoredTranscript | None]] | None = None
    memory_report: Callable[[], dict[str, Any] | None] | None = None


async def translate_video(spec: VideoJobSpec, deps: PipelineDeps, progress: Progress, workdir: Path) -> dict[str, Any]:
    """Run the whole pipeline; returns the task ``result`` object."""
    await progress.enter("validating")
    media, info = await obtain_video(spec, deps, workdir)
    start, end = _range(spec, info)
    shots = asyncio.create_task(_shot_changes(spec, media, info, deps))

    try:
        await progress.enter("extracting")
        wav = await asyncio.to_thread(
            extract_audio,
            media,
            workdir / "audio.wav",
            start=start or None,
            end=end if end is not None else info.duration,  # never past what was probed and charged
            audio_index=info.audio.index if info.audio else None,
            timeout_s=deps.timeout_s,
        )
        audio = await asyncio.to_thread(load_audio, wav)

        await progress.enter("recognizing")
        language = spec.source_lang or (await deps.detect_language(audio[: int(DETECT_WINDOW_S * SAMPLE_RATE)]))[0]
        await check_pair(deps, language, spec.target_lang)
        glossary = job_glossary(spec, language)
        layout = layout_of(
            spec, language, spec.target_lang, speaker_labels=spec.enable_diarization,
            fps=frame_rate(info), until=end if end is not None else info.duration or None,
        )  # fmt: skip

        async def translate(request: TranslationRequest) -> TranslationResult:
            return await deps.translate(request, glossary)

        transcript, early = await _recognize(spec, layout, audio, language, start, translate, deps, progress)

        speakers: list[Speaker] = []
        if spec.enable_diarization:
            await progress.enter("diarizing")
            transcript, speakers = await _diarize(spec, audio, start, transcript, deps, progress)
    except BaseException:
        shots.cancel()
        raise

    await progress.enter("translating")

    async def report(fraction: float) -> None:
        await progress.update("translating", fraction)

    layout = layout.with_shot_changes(await shots)
    translated = await translate_transcript(
        spec, transcript, language, translate, report, layout=layout, summarize=deps.summarize, early=early
    )

    await progress.enter("synthesizing")
    source, dubbed = media, None
    if spec.enable_dubbing:
        dubbed = await _dub(spec, translated, speakers, language, info, media, workdir, deps, progress)
        source = dubbed[0]
    outputs = await render_outputs(spec, translated.cues, frame_size(info), source, workdir, deps, info.duration)
    add_dub(spec, outputs, dubbed, workdir)

    await progress.enter("packaging")
    stored = to_stored(
        translated.groups, translated.sentences, translated.translations, speakers,
        dubbing_by_segment(translated.groups, dubbed[1]) if dubbed is not None else None,
        source_lang=language, target_lang=spec.target_lang, duration=info.duration,
        span=(start, end if end is not None else info.duration), size=frame_size(info),
        speaker_labels=spec.enable_diarization, full=translated.full,
        words=words_by_segment(translated.groups, transcript), timing=layout.timing(), qc=translated.qc,
    )  # fmt: skip
    await store_transcript(stored, workdir, deps)
    result = {
        **await publish_outputs(spec, outputs, deps),
        "duration": round(info.duration, 3),
        "char_count": translated.char_count,
        "source_lang": language,
    }
    if translated.qc is not None:
        result["qc"] = translated.qc.summary()
    if spec.enable_diarization:
        result["speakers"] = [{"speaker": s.name, "seconds": round(s.seconds, 1), "gender": s.gender} for s in speakers]
    return result


async def obtain_video(spec: VideoJobSpec, deps: PipelineDeps, workdir: Path) -> tuple[Path, MediaInfo]:
    """The task's video, probed and accepted: the contract's checks, what its outputs need, its minutes charged
    (a ``video_url`` is probed only here)."""
    media = await deps.obtain(spec.source, workdir)
    hint = spec.source.filename if isinstance(spec.source, UploadSource) else None
    info = await asyncio.to_thread(probe, media, filename_hint=hint)
    validate(info)
    check_renderable(info, burns=spec.burns, dubs=spec.enable_dubbing)
    await deps.admit(info)
    return media, info


async def _recognize(
    spec: VideoJobSpec,
    layout: Layout,
    audio: np.ndarray,
    language: str,
    start: float,
    translate: Callable[[TranslationRequest], Awaitable[TranslationResult]],
    deps: PipelineDeps,
    progress: Progress,
) -> tuple[Transcript, EarlyTranslation | None]:
    """The transcript; on long recordings cut into chunks, translation of the settled sentences
    starts while later chunks are still being recognized (docs/video.md, "Recognition and translation overlap")."""
    early = start_early(spec, layout, language, translate)
    reporter = stage_reporter(progress, "recognizing")
    if early is None:
        return await deps.transcribe(audio, language, start, reporter), None
    try:
        transcript = await deps.transcribe(audio, language, start, reporter, on_prefix=early.offer)
        await early.finish()
    except BaseException:
        early.cancel()
        raise
    return transcript, early


async def _diarize(
    spec: VideoJobSpec, audio: np.ndarray, start: float, transcript: Transcript, deps: PipelineDeps, progress: Progress
) -> tuple[Transcript, list[Speaker]]:
    """Speaker turns over the whole recording, then each word's speaker by time."""
    if deps.diarize is None:
        raise EngineUnavailable("speaker diarization is not deployed on this service")
    diarization = await deps.diarize(audio, spec.speaker_count, start, stage_reporter(progress, "diarizing"))
    transcript = assign_speakers(transcript, diarization)
    names = display_names(transcript)
    speakers = [
        Speaker(names[p.speaker], p.seconds, p.gender, p.gender_confidence, tuple(p.embedding))
        for p in diarization.speakers
        if p.speaker in names
    ]
    return transcript, sorted(speakers, key=lambda s: int(s.name.rsplit(" ", 1)[-1]))


async def _dub(
    spec: VideoJobSpec,
    translated: TranslatedTranscript,
    speakers: list[Speaker],
    language: str,
    info: MediaInfo,
    media: Path,
    workdir: Path,
    deps: PipelineDeps,
    progress: Progress,
) -> tuple[Path, dict[str, Any]]:
    if deps.dubbing is None:
        raise EngineUnavailable("AI dubbing needs the TTS deployment, which is not deployed on this service")
    start, end = _range(spec, info)
    request = DubRequest(
        voice=spec.dubbing_voice, speed=spec.dubbing_speed, bg_music=spec.dubbing_bg_music, target_lang=spec.target_lang,
        source_lang=language, start=start, end=end if end is not None else info.duration, engine=spec.engine,
    )  # fmt: skip
    glossary = job_glossary(spec, language)

    async def translate(request: TranslationRequest) -> TranslationResult:
        return await deps.translate(request, glossary)

    reporter = stage_reporter(progress, "synthesizing")
    return await dub(request, translated.lines, speakers, media, workdir, deps.dubbing, translate, reporter, deps.timeout_s)


async def _shot_changes(spec: VideoJobSpec, media: Path, info: MediaInfo, deps: PipelineDeps) -> tuple[float, ...]:
    """The video's shot changes, for timing (none without a video stream or under the legacy preset).

    Detection runs beside extraction and recognition; a failure only costs the snapping, never the task.
    """
    if info.video is None or spec.subtitle_preset == "legacy":
        return ()
    try:
        return await asyncio.to_thread(detect_shot_changes, media, timeout_s=deps.timeout_s)
    except Exception as exc:
        log.warning("no shot changes (%s); timing without them", exc)
        return ()


def frame_rate(info: MediaInfo) -> float | None:
    """The video's frame rate; None without a video stream or with a rate no video has (timing then uses 24 fps)."""
    fps = info.video.fps if info.video is not None else 0.0
    return fps if MIN_FPS <= fps <= MAX_FPS else None


def _range(spec: VideoJobSpec, info: MediaInfo) -> tuple[float, float | None]:
    if spec.start_time >= info.duration:
        raise InvalidInput(f"start_time {spec.start_time:g} s is beyond the video's duration ({info.duration:.1f} s)")
    end = spec.end_time if spec.end_time is not None and spec.end_time < info.duration else None
    return spec.start_time, end


async def check_pair(deps: PipelineDeps, source: str, target: str) -> None:
    """Refuse a language pair the translator does not offer (the submission could not check a detected source)."""
    if not translates(await deps.pairs(), source, target):
        raise UnsupportedLanguage(
            f"speech in {source} cannot be translated into {target} on this service", source=source, target=target
        )


def stage_reporter(progress: Progress, stage: str) -> Callable[[float], None]:
    loop = asyncio.get_running_loop()

    def report(fraction: float) -> None:
        asyncio.run_coroutine_threadsafe(progress.update(stage, fraction), loop)

    return report


async def store_transcript(transcript: StoredTranscript, workdir: Path, deps: PipelineDeps) -> None:
    """``transcript.json`` next to the outputs, for revisions (docs/video-revisions.md); not a download of its own."""
    path = write_file(workdir / TRANSCRIPT_NAME, transcript.model_dump_json(exclude={"task_id"}))
    await deps.publish(path, TRANSCRIPT_NAME, "application/json")


def frame_size(info: MediaInfo) -> tuple[int, int] | None:
    return (info.video.width, info.video.height) if info.video and info.video.width and info.video.height else None
