"""Speaker diarization on the CPU: Silero VAD, VoiceFilter window embeddings, agglomerative clustering.

Method (``EmbeddedDiarizer.diarize``):

1. **Speech regions**: Silero VAD (:class:`~engines.audio.vad.SileroVad`).
2. **Window embeddings**: windows of ``window_s`` (1.5 s) every ``hop_s``
   (0.75 s) inside each region, the last ending at the region's end; a region
   shorter than a window is one window. Each gets a VoiceFilter d-vector
   (:mod:`.embedding`, which shares the encoder's work between overlapping windows).
3. **Clustering**: average-linkage agglomeration on cosine distance
   (:mod:`.clustering`) into ``num_speakers`` clusters, or, when that is not
   given, until clusters are more than ``threshold`` (0.55) apart; clusters of
   a single window are folded into the nearest speaker, at most ``max_speakers``.
4. **Frame labels**: every 0.1 s speech frame scores each speaker by the
   cosine of the windows covering it to the speaker's centroid, weighted by
   how central the frame is in each window (a triangle), and takes the best.
5. **Turns**: runs of one speaker inside a region; turns under
   ``min_turn_s`` (0.3 s) that touch another speaker's turn are given to it
   (never a speaker's last turn); speakers renumbered ``S1``, ``S2``, … by first appearance.
6. **Profiles**: per speaker, the total seconds, the gender from the pitch of
   up to 30 s of its speech (:func:`~engines.speaker.gender.estimate_gender`),
   and the normalised mean of its windows' d-vectors.

The threshold was tuned on the test dialogues (docs/diarization.md): both come
out right from 0.5 to 0.6.

Options: ``EmbeddedDiarizerOptions``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from pydantic import Field, model_validator

from engines.audio.decode import AudioClip
from engines.diarization.base import (
    DIARIZATION_RATE,
    Diarization,
    DiarizationEngine,
    ProgressCallback,
    SpeakerTurn,
    check_request,
)
from engines.diarization.clustering import (
    DEFAULT_MAX_CLUSTERS,
    DEFAULT_THRESHOLD,
    absorb_short,
    centroids,
    cluster,
    merge_adjacent,
)
from engines.diarization.embedding import WindowEmbedder, Windows
from engines.diarization.profiles import build_profiles
from engines.errors import EngineUnavailable
from engines.options import EngineOptions

FRAME_S = 0.1
#: Share of the run spent on voice activity detection, for progress reports (the rest is embedding).
_VAD_SHARE = 0.25


class EmbeddedDiarizerOptions(EngineOptions):
    """How the embedded diarizer cuts, embeds and clusters the speech."""

    threads: int = Field(2, ge=1, description="onnxruntime threads of the VoiceFilter speaker encoder.")
    window_s: float = Field(1.5, gt=0, description="Embedding window, seconds.")
    hop_s: float = Field(0.75, gt=0, description="Step between windows, seconds (at most window_s).")
    threshold: float = Field(
        DEFAULT_THRESHOLD, gt=0, le=2, description="Cosine distance that separates speakers when their number is estimated."
    )
    max_speakers: int = Field(DEFAULT_MAX_CLUSTERS, ge=1, description="The most speakers an estimate returns.")
    min_turn_s: float = Field(0.3, ge=0, description="Shorter turns touching another speaker's are given to it.")
    vad_threshold: float = Field(0.5, gt=0, lt=1, description="Silero VAD speech probability threshold.")
    pad_s: float = Field(0.1, ge=0, description="Seconds added around each VAD speech region.")
    merge_gap_s: float = Field(0.5, ge=0, description="One speaker's turns at most this far apart are joined.")

    @model_validator(mode="after")
    def _hop_within_window(self) -> EmbeddedDiarizerOptions:
        if self.hop_s > self.window_s:
            raise ValueError("hop_s must not exceed window_s")
        return self


class EmbeddedDiarizer(DiarizationEngine):
    """Diarization with the models already in the CPU image (Silero VAD, VoiceFilter)."""

    name: ClassVar[str] = "embedded-diarizer"
    Options = EmbeddedDiarizerOptions
    options: EmbeddedDiarizerOptions

    def __init__(self, options: EmbeddedDiarizerOptions | None = None, /, **overrides: Any) -> None:
        super().__init__(options, **overrides)
        self._vad: Any = None
        self._embedder: WindowEmbedder | None = None

    def start(self) -> None:
        from engines.audio.vad import SileroVad

        self._vad = SileroVad()
        self._embedder = WindowEmbedder(threads=self.options.threads)

    def health(self) -> None:
        if self._vad is None or self._embedder is None:
            raise EngineUnavailable("the diarizer is not started")

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
        assert self._embedder is not None
        report = on_progress or (lambda fraction: None)
        regions = self._regions(samples)
        report(_VAD_SHARE)
        opts = self.options
        windows = self._embedder.windows(
            samples, regions, opts.window_s, opts.hop_s, lambda f: report(_VAD_SHARE + (1 - _VAD_SHARE) * f)
        )
        if len(windows) == 0:
            report(1.0)
            return Diarization((), (), self.name)
        labels = cluster(windows.vectors, num_clusters=num_speakers, threshold=opts.threshold, max_clusters=opts.max_speakers)
        raw_turns = merge_adjacent(absorb_short(_turns(regions, windows, labels), opts.min_turn_s), opts.merge_gap_s)
        order = {label: i for i, label in enumerate(dict.fromkeys(label for _, _, label in raw_turns))}
        turns = tuple(
            SpeakerTurn(round(offset + s, 3), round(offset + e, 3), f"S{order[label] + 1}") for s, e, label in raw_turns
        )
        embeddings = {f"S{i + 1}": windows.vectors[labels == label] for label, i in order.items()}
        profiles = build_profiles(samples, turns, embeddings, offset)
        report(1.0)
        return Diarization(turns, profiles, self.name)

    def _regions(self, samples: np.ndarray) -> list[tuple[float, float]]:
        """Speech regions of the audio in seconds, padded by ``pad_s``."""
        if samples.size < DIARIZATION_RATE // 10:
            return []
        clip = AudioClip(samples, DIARIZATION_RATE)
        return list(self._vad.speech_segments(clip, threshold=self.options.vad_threshold, pad_s=self.options.pad_s))


def _turns(regions: list[tuple[float, float]], windows: Windows, labels: np.ndarray) -> list[tuple[float, float, int]]:
    """Per-region runs of frame labels: ``(start, end, label)`` in seconds, sorted."""
    centres = centroids(windows.vectors.astype(np.float64), labels)
    keys = np.asarray(list(centres))
    similarity = windows.vectors @ np.stack(list(centres.values())).T  # (windows, speakers)
    mids, halves = (windows.starts + windows.ends) / 2, np.maximum((windows.ends - windows.starts) / 2, 1e-3)
    frame_labels: list[tuple[float, float, int]] = []
    for start, end in regions:
        edges = np.append(np.arange(start, end, FRAME_S), end)
        if len(edges) > 2 and edges[-1] - edges[-2] < FRAME_S / 2:
            edges = np.delete(edges, -2)
        times = (edges[:-1] + edges[1:]) / 2
        covering = (windows.starts[None, :] <= times[:, None]) & (windows.ends[None, :] >= times[:, None])
        weight = np.where(covering, 1.05 - np.abs(times[:, None] - mids[None, :]) / halves[None, :], 0.0)
        frame_keys = keys[np.argmax(weight @ similarity, axis=1)]
        frame_labels += [(float(a), float(b), int(k)) for a, b, k in zip(edges[:-1], edges[1:], frame_keys)]
    return _keep_every_label(_runs(frame_labels), windows, labels, set(centres))


def _runs(frames: list[tuple[float, float, int]]) -> list[tuple[float, float, int]]:
    """Contiguous frames of one label joined."""
    out: list[tuple[float, float, int]] = []
    for start, end, label in frames:
        if out and out[-1][2] == label and abs(out[-1][1] - start) < 1e-6:
            out[-1] = (out[-1][0], end, label)
        else:
            out.append((start, end, label))
    return out


def _keep_every_label(
    runs: list[tuple[float, float, int]], windows: Windows, labels: np.ndarray, wanted: set[int]
) -> list[tuple[float, float, int]]:
    """Give a cluster that won no frame the middle of its most central window, so the speaker count holds."""
    missing = wanted - {label for _, _, label in runs}
    for label in sorted(missing):
        members = np.flatnonzero(labels == label)
        centre = windows.vectors[members].mean(axis=0)
        index = int(members[np.argmax(windows.vectors[members] @ centre)])
        mid, half = (windows.starts[index] + windows.ends[index]) / 2, (windows.ends[index] - windows.starts[index]) / 4
        cut_start, cut_end = mid - half, mid + half
        pieces: list[tuple[float, float, int]] = []
        for s, e, lab in runs:
            if e <= cut_start or s >= cut_end:
                pieces.append((s, e, lab))
                continue
            if s < cut_start:
                pieces.append((s, cut_start, lab))
            pieces.append((max(s, cut_start), min(e, cut_end), label))
            if e > cut_end:
                pieces.append((cut_end, e, lab))
        runs = pieces
    return _runs(runs)
