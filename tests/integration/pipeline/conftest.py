"""The video pipeline wired in-process to real engines (Whisper, apertium, ffmpeg), without Serve."""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from core.capability_args import TtsArgs
from core.files import LocalFileStore
from core.paths import project_path
from core.specs.video import UploadSource, UrlSource, VideoJobSpec
from engines.asr.audio import merge_transcripts, split_at_silences
from engines.asr.types import Transcript
from engines.asr.whisper import WhisperEngine
from engines.audio.denoise import DeepFilterDenoiser
from engines.diarization.base import Diarization, DiarizationEngine
from engines.dubbing.separation import separate_track
from engines.dubbing.wav_track import WavTrack
from engines.media.probe import MediaInfo
from engines.registry import create_engine, start_engine
from engines.translation.apertium.engine import ApertiumEngine
from engines.translation.base import TranslationRequest, TranslationResult
from engines.translation.glossary import Glossary
from engines.translation.safe import SafeTranslator
from engines.tts.synthesizer import SpeechRequest, Synthesizer
from engines.tts.voice_table import VoiceTable
from engines.voice.cloner import VoiceCloneEngine
from pipelines.dubbing.dubber import DubbingDeps
from pipelines.video_translation import PipelineDeps
from tests.integration.conftest import LOCAL_ARGS

MODELS = Path(__file__).resolve().parents[3] / "models"
LOCAL_TTS: dict[str, Any] = LOCAL_ARGS["tts"]


@pytest.fixture(scope="session")
def whisper() -> WhisperEngine:
    model_dir = MODELS / "whisper-base"
    assert (model_dir / "model.bin").is_file(), "run `make setup` to assemble models/"
    engine = WhisperEngine(model_dir=str(model_dir), cpu_threads=2, batch_size=8)
    engine.start()
    return engine


@pytest.fixture(scope="session")
def translator() -> SafeTranslator:
    engine = ApertiumEngine()
    engine.start()
    return SafeTranslator(engine)


@pytest.fixture
def store(tmp_path: Path) -> LocalFileStore:
    return LocalFileStore(tmp_path / "files", "http://files.test", b"0123456789abcdef0123456789abcdef")


def local_deps(
    whisper: WhisperEngine,
    translator: SafeTranslator,
    store: LocalFileStore,
    chunk_s: float = 20.0,
    *,
    dubbing: DubbingDeps | None = None,
    diarizer: DiarizationEngine | None = None,
) -> PipelineDeps:
    """Same contract as production wiring; chunks run one after another here."""

    async def obtain(source: UploadSource | UrlSource, workdir: Path) -> Path:
        assert isinstance(source, UploadSource)
        return Path(source.key)  # tests name the local media file directly

    async def admit(info: MediaInfo) -> None:
        return None

    async def detect(audio: np.ndarray) -> tuple[str, float]:
        return await asyncio.to_thread(whisper.detect_language, audio)

    async def transcribe(
        audio: np.ndarray,
        language: str,
        offset: float,
        report: Callable[[float], None],
        *,
        on_prefix: Callable[[Transcript, float], None] | None = None,
    ) -> Transcript:
        chunks = split_at_silences(audio, chunk_s, chunk_s * 1.25)
        parts = []
        for i, chunk in enumerate(chunks):
            parts.append(await asyncio.to_thread(whisper.transcribe, chunk.slice(audio), language, offset + chunk.start))
            report((i + 1) / len(chunks))
            if on_prefix is not None and i + 1 < len(chunks):
                on_prefix(merge_transcripts(parts), offset + chunk.end)
        return merge_transcripts(parts)

    async def translate(request: TranslationRequest, glossary: Glossary | None) -> TranslationResult:
        return await asyncio.to_thread(translator.translate, request, glossary)

    async def pairs() -> frozenset[tuple[str, str]]:
        return translator.pairs()

    async def publish(path: Path, name: str, content_type: str) -> str:
        stored = await store.put("task", name, path, content_type)
        return store.url(stored.key, time.time() + 3600)

    async def diarize(audio: np.ndarray, speakers: int | None, offset: float, report: Callable[[float], None]) -> Diarization:
        assert diarizer is not None
        return await asyncio.to_thread(diarizer.diarize, audio, num_speakers=speakers, offset=offset, on_progress=report)

    return PipelineDeps(
        obtain, admit, detect, transcribe, translate, pairs, publish, timeout_s=300,
        diarize=diarize if diarizer is not None else None, dubbing=dubbing,
    )  # fmt: skip


@pytest.fixture(scope="session")
def synthesizer() -> Synthesizer:
    """The CPU profile's TTS engines in-process, with its measured default voices (configs/voices.yaml)."""
    engines = {}
    for spec in LOCAL_TTS["engines"]:
        engine = create_engine(spec["engine"], spec.get("options"))
        engine.start()
        engines[engine.name] = engine
    return Synthesizer(
        engines, LOCAL_TTS.get("defaults"), VoiceTable.load(project_path(TtsArgs.model_validate(LOCAL_TTS).voice_table))
    )


@pytest.fixture(scope="session")
def denoiser() -> DeepFilterDenoiser:
    return DeepFilterDenoiser(pool_size=1)


@pytest.fixture(scope="session")
def diarizer() -> DiarizationEngine:
    spec = LOCAL_ARGS["diarizer"]
    engine = create_engine(spec["engine"], spec.get("options"))
    assert isinstance(engine, DiarizationEngine)
    engine.start()
    return engine


@pytest.fixture(scope="session")
def cloner() -> VoiceCloneEngine:
    spec = LOCAL_ARGS["voice_cloner"]
    return start_engine(spec["engine"], spec.get("options"), VoiceCloneEngine)


def dubbing_deps(synthesizer: Synthesizer, denoiser: DeepFilterDenoiser, cloner: VoiceCloneEngine | None = None) -> DubbingDeps:
    """Dubbing wired to in-process engines, as pipelines/dubbing/wiring.py wires the deployments."""

    async def fit_voice(sample: bytes, lang: str, gender: str) -> dict[str, Any]:
        assert cloner is not None
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "sample.wav"
            path.write_bytes(sample)
            prepared = await asyncio.to_thread(cloner.prepare, str(path), noise_reduction=False)
        fitted = await asyncio.to_thread(cloner.fit, prepared, lang, gender)
        return {"engine": fitted.engine, "style": fitted.style, "quality_score": fitted.quality_score}

    async def synthesize(request: SpeechRequest, semitones: float) -> tuple[np.ndarray, int]:
        return await asyncio.to_thread(synthesizer.render, request, semitones)

    async def catalogue(lang: str) -> list[dict[str, Any]]:
        return [{**v.public(), "quality": v.quality} for v in synthesizer.voices(lang)]

    async def separate_audio(
        span: WavTrack, speech: Path, background: Path, report: Callable[[float], None]
    ) -> tuple[WavTrack, WavTrack]:
        return await asyncio.to_thread(separate_track, span, speech, background, denoiser, on_progress=report)

    ranking = VoiceTable.load(project_path(LOCAL_ARGS["dubbing"]["voice_ranking"]))
    return DubbingDeps(synthesize, catalogue, separate_audio, ranking, fit_voice=fit_voice if cloner is not None else None)


class Recorder:
    """Progress sink that keeps every update."""

    def __init__(self) -> None:
        self.updates: list[tuple[str, int, int]] = []

    async def __call__(self, stage: str, percent: int, remaining: int) -> None:
        self.updates.append((stage, percent, remaining))


def spec_for(media: Path, **options: Any) -> VideoJobSpec:
    """A job spec whose source is a local media file."""
    return VideoJobSpec(source=UploadSource(key=str(media)), **options)
