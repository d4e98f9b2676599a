"""Where a voice sample holds speech: Silero VAD (ONNX) on 16 kHz audio.

The model is the ``silero_vad.onnx`` file shipped in the ``silero_vad`` PyPI
package; only the data file is used (the package's Python code needs torch).
The model scores 32 ms windows (512 samples) one after another, carrying a
recurrent ``state`` [2, 1, 128] and, like the official wrapper, seeing the last
64 samples of the previous window in front of each new one. Window scores
become segments as in ``silero_vad.get_speech_timestamps``: speech starts at a
score >= ``threshold``, ends after ``min_silence_s`` under ``threshold - 0.15``,
segments shorter than ``min_speech_s`` are dropped, and each is padded by
``pad_s`` (halving the gap between neighbours closer than twice that).

The ONNX session is shared: ``InferenceSession.run`` is thread-safe and all
per-call state (recurrent state, context) lives in the call, so one
``SileroVad`` serves any number of threads.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from engines.audio.decode import AudioClip
from engines.errors import EngineUnavailable

#: The model's rate, window and context (``silero_vad.utils_vad.OnnxWrapper`` at 16 kHz).
VAD_RATE = 16_000
WINDOW = 512
CONTEXT = 64
#: Hysteresis: once in speech, a window must score under ``threshold - NEG_OFFSET`` to count as silence.
NEG_OFFSET = 0.15

Segments = list[tuple[float, float]]


def default_model_path() -> Path:
    """``silero_vad/data/silero_vad.onnx`` of the installed package.

    Located with ``find_spec``, which does not run the package: its ``__init__``
    imports torch (``importlib.resources.files`` would import it too).
    """
    spec = importlib.util.find_spec("silero_vad")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the silero_vad package is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "data" / "silero_vad.onnx"


class SileroVad:
    """Speech segments of a clip, in seconds.

    Args:
        model_path: an ONNX Silero VAD model (v5/v6 interface); the packaged one by default.

    Raises:
        EngineUnavailable: onnxruntime or the model file is missing or cannot be loaded.
    """

    def __init__(self, model_path: str | os.PathLike[str] | None = None) -> None:
        try:
            import onnxruntime as ort

            path = Path(model_path) if model_path is not None else default_model_path()
            options = ort.SessionOptions()
            options.intra_op_num_threads = 1
            options.inter_op_num_threads = 1
            self._session = ort.InferenceSession(os.fspath(path), sess_options=options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # ImportError, a missing package or file, a corrupt model
            raise EngineUnavailable(f"the Silero VAD model could not be loaded: {exc}") from exc
        self.model_path = path
        self._rate = np.array(VAD_RATE, dtype=np.int64)

    def speech_probabilities(self, clip: AudioClip) -> np.ndarray:
        """The model's speech probability for each 512-sample (32 ms) window of the clip at 16 kHz."""
        audio = clip.resampled(VAD_RATE).samples
        windows = -(-len(audio) // WINDOW)
        padded = np.zeros(CONTEXT + windows * WINDOW, dtype=np.float32)
        padded[CONTEXT : CONTEXT + len(audio)] = audio
        state = np.zeros((2, 1, 128), dtype=np.float32)
        probs = np.empty(windows, dtype=np.float32)
        for i in range(windows):
            frame = padded[i * WINDOW : (i + 1) * WINDOW + CONTEXT][None, :]
            out, state = self._session.run(None, {"input": frame, "state": state, "sr": self._rate})
            probs[i] = out[0, 0]
        return probs

    def speech_segments(
        self,
        clip: AudioClip,
        threshold: float = 0.5,
        min_speech_s: float = 0.25,
        min_silence_s: float = 0.1,
        pad_s: float = 0.03,
    ) -> Segments:
        """``[(start_s, end_s), ...]`` of speech, sorted and disjoint, within ``[0, clip.duration_s]``."""
        probs = self.speech_probabilities(clip)
        return segments_from_probabilities(
            probs, clip.duration_s, threshold=threshold, min_speech_s=min_speech_s, min_silence_s=min_silence_s, pad_s=pad_s
        )


def segments_from_probabilities(
    probs: Sequence[float] | np.ndarray,
    duration_s: float,
    *,
    threshold: float = 0.5,
    min_speech_s: float = 0.25,
    min_silence_s: float = 0.1,
    pad_s: float = 0.03,
) -> Segments:
    """Speech segments from per-window probabilities (windows of ``WINDOW / VAD_RATE`` seconds)."""
    step = WINDOW / VAD_RATE
    raw = _raw_segments(probs, step, duration_s, threshold, max(threshold - NEG_OFFSET, 0.01), min_silence_s)
    kept = [(s, e) for s, e in raw if e - s > min_speech_s]
    return _padded(kept, pad_s, duration_s)


def _raw_segments(
    probs: Sequence[float] | np.ndarray, step: float, duration_s: float, on: float, off: float, min_silence_s: float
) -> Segments:
    """Hysteresis over the scores: start at ``on``, end at the first of ``min_silence_s`` under ``off``."""
    segments: Segments = []
    start: float | None = None
    quiet_since: float | None = None
    for i, p in enumerate(probs):
        t = i * step
        if p >= on:
            quiet_since = None
            if start is None:
                start = t
        elif start is not None and p < off:
            quiet_since = t if quiet_since is None else quiet_since
            if t - quiet_since >= min_silence_s:
                segments.append((start, quiet_since))
                start = quiet_since = None
    if start is not None:
        segments.append((start, duration_s))
    return segments


def _padded(segments: Segments, pad_s: float, duration_s: float) -> Segments:
    """Widen each segment by ``pad_s``; neighbours closer than ``2 * pad_s`` meet halfway."""
    out = [list(seg) for seg in segments]
    for i, seg in enumerate(out):
        if i == 0:
            seg[0] = max(0.0, seg[0] - pad_s)
        if i + 1 < len(out):
            gap = out[i + 1][0] - seg[1]
            widen = gap / 2 if gap < 2 * pad_s else pad_s
            seg[1] += widen
            out[i + 1][0] -= widen
        else:
            seg[1] = min(duration_s, seg[1] + pad_s)
    return [(round(s, 4), round(e, 4)) for s, e in out]


def speech_seconds(segments: Sequence[tuple[float, float]]) -> float:
    """Total seconds covered by ``segments`` (disjoint, as ``speech_segments`` returns them)."""
    return float(sum(max(0.0, end - start) for start, end in segments))
