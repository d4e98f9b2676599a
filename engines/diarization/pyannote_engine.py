"""Speaker diarization on the GPU profile: a pyannote.audio pipeline behind the diarization interface.

``pyannote.audio`` (and torch) are imported in ``start()`` only, so the CPU
image never needs them. The pipeline is loaded with
``Pipeline.from_pretrained(options.pipeline)``: a local directory or
``config.yaml`` baked into the image (the default name,
``pyannote/speaker-diarization-3.1``, resolves through the Hugging Face cache,
which the image must already hold: the cluster has no network). It runs on
``options.device`` (``cuda``) with ``num_speakers`` when given.

pyannote's labels (``SPEAKER_00``, …) become ``S1``, ``S2``, … by first
appearance; overlapping turns are cut so the result stays disjoint (the later
turn starts where the earlier one ends). Profiles are built as the embedded
engine builds them: gender from pitch, and the embedding from the VoiceFilter
encoder over up to 60 s of each speaker's speech, so dubbing voice matching
compares the same kind of vector whichever engine ran.

Options: ``PyannoteOptions``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from pydantic import Field

from engines.audio.dsp import UnusableAudio
from engines.diarization.base import (
    DIARIZATION_RATE,
    Diarization,
    DiarizationEngine,
    ProgressCallback,
    SpeakerTurn,
    check_request,
    renumber,
)
from engines.diarization.profiles import EMBED_MAX_S, build_profiles, speaker_audio
from engines.errors import EngineFailure, EngineUnavailable
from engines.options import EngineOptions

DEFAULT_PIPELINE = "pyannote/speaker-diarization-3.1"


class PyannoteOptions(EngineOptions):
    """Which pyannote pipeline runs where."""

    pipeline: str = Field(
        DEFAULT_PIPELINE,
        min_length=1,
        description="A local pipeline directory or config.yaml, or a Hub name already in the Hugging Face cache.",
    )
    device: str = Field("cuda", min_length=1, description="torch device the pipeline runs on.")
    max_speakers: int = Field(32, ge=1, description="Upper bound passed to the pipeline when num_speakers is not given.")
    encoder_threads: int = Field(2, ge=1, description="onnxruntime threads of the VoiceFilter encoder used for the profiles.")


class PyannoteDiarizer(DiarizationEngine):
    """pyannote.audio speaker diarization (GPU cluster profile)."""

    name: ClassVar[str] = "pyannote"
    Options = PyannoteOptions
    options: PyannoteOptions

    def __init__(self, options: PyannoteOptions | None = None, /, **overrides: Any) -> None:
        super().__init__(options, **overrides)
        self._pipeline: Any = None
        self._encoder: Any = None

    def start(self) -> None:
        try:
            import torch
            from pyannote.audio import Pipeline
        except ImportError as exc:
            raise EngineUnavailable(
                f"the pyannote diarizer needs pyannote.audio and torch, which are not installed ({exc}); "
                "use the CPU engine 'embedded-diarizer' or install pyannote.audio in the GPU image"
            ) from exc
        from engines.speaker.voicefilter_encoder import VoiceFilterEncoder

        try:
            pipeline = Pipeline.from_pretrained(self.options.pipeline)
        except Exception as exc:  # missing files, a gated model not in the cache, a bad config
            raise EngineUnavailable(f"the pyannote pipeline {self.options.pipeline!r} could not be loaded: {exc}") from exc
        if pipeline is None:
            raise EngineUnavailable(f"the pyannote pipeline {self.options.pipeline!r} could not be loaded (not in the image?)")
        pipeline.to(torch.device(self.options.device))
        self._torch = torch
        self._pipeline = pipeline
        self._encoder = VoiceFilterEncoder(threads=self.options.encoder_threads)

    def health(self) -> None:
        if self._pipeline is None:
            raise EngineUnavailable("the pyannote diarizer is not started")

    def diarize(
        self,
        audio: np.ndarray,
        *,
        num_speakers: int | None = None,
        offset: float = 0.0,
        on_progress: ProgressCallback | None = None,
    ) -> Diarization:
        samples = check_request(audio, num_speakers)
        self.health()
        if samples.size < DIARIZATION_RATE // 10:
            return Diarization((), (), self.name)
        report = on_progress or (lambda fraction: None)
        report(0.0)
        raw = self._run(samples, num_speakers)
        report(0.9)
        mapping = renumber([label for _, _, label in raw])
        turns = tuple(SpeakerTurn(round(offset + s, 3), round(offset + e, 3), mapping[label]) for s, e, label in raw)
        embeddings = {speaker: self._embed(samples, turns, speaker, offset) for speaker in mapping.values()}
        profiles = build_profiles(samples, turns, embeddings, offset)
        report(1.0)
        return Diarization(turns, profiles, self.name)

    def _run(self, samples: np.ndarray, num_speakers: int | None) -> list[tuple[float, float, str]]:
        """The pipeline's turns ``(start, end, label)``, sorted and made disjoint."""
        waveform = self._torch.from_numpy(samples[None, :].copy())
        kwargs: dict[str, Any] = {"num_speakers": num_speakers} if num_speakers else {"max_speakers": self.options.max_speakers}
        try:
            output = self._pipeline({"waveform": waveform, "sample_rate": DIARIZATION_RATE}, **kwargs)
        except Exception as exc:
            raise EngineFailure(f"pyannote diarization failed: {exc}") from exc
        annotation = getattr(output, "speaker_diarization", output)  # pyannote 4 wraps the annotation
        turns = sorted(
            (float(seg.start), float(seg.end), str(label)) for seg, _, label in annotation.itertracks(yield_label=True)
        )
        return disjoint(turns)

    def _embed(self, samples: np.ndarray, turns: tuple[SpeakerTurn, ...], speaker: str, offset: float) -> np.ndarray:
        """VoiceFilter d-vector of up to 60 s of the speaker's speech (zeros when too short to embed)."""
        speech = speaker_audio(samples, turns, speaker, offset, EMBED_MAX_S)
        try:
            return np.asarray(self._encoder.embed(speech, DIARIZATION_RATE))
        except UnusableAudio:
            return np.zeros(self._encoder.dim, dtype=np.float32)


def disjoint(turns: list[tuple[float, float, str]]) -> list[tuple[float, float, str]]:
    """Sorted turns with overlaps removed: a turn starts no earlier than the previous one ends; empty ones dropped."""
    out: list[tuple[float, float, str]] = []
    for start, end, label in sorted(turns):
        if out:
            start = max(start, out[-1][1])
        if end - start > 1e-3:
            out.append((start, end, label))
    return out
