"""Resemblyzer's GE2E speaker encoder, run in numpy from its torch checkpoint (no torch needed).

Weights: ``resemblyzer/pretrained.pt`` in the PyPI package ``Resemblyzer`` 0.1.4
(installed with ``--no-deps``): a legacy (pre-zip) torch pickle whose
``model_state`` holds a 3-layer LSTM (40 -> 256), a linear layer 256 -> 256,
ReLU and L2 normalisation. :func:`read_legacy_checkpoint` reads that format;
:func:`lstm_last_hidden` runs the LSTM with torch's gate order (i, f, g, o).

Features reproduce ``resemblyzer/audio.py`` with librosa 0.11's defaults:
16 kHz, volume raised (never lowered) to -30 dBFS, 40-channel mel power
spectrogram (not log) with a 400-sample periodic Hann window, hop 160, centre
padding with zeros. ``embed_utterance`` is reproduced too: 160-frame (1.6 s)
partials at 1.3 per second (about 50 % overlap), the last one kept when it is at
least 75 % covered, each partial embedded, the mean L2-normalised.

Difference from the package: ``preprocess_wav`` trims long silences with
webrtcvad, which is not installed here; :func:`trim_long_silences` keeps the
same smoothing and dilation but flags 30 ms windows by energy (within
:data:`VAD_RANGE_DB` of the loud windows) instead of webrtcvad's classifier.
"""

from __future__ import annotations

import contextlib
import pickle
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from engines.audio.dsp import MODEL_RATE, UnusableAudio, frames, package_file, periodic_window, power_spectrogram, prepare, unit
from engines.errors import EngineUnavailable
from engines.mel import mel_filterbank

N_FFT = 400
HOP = 160
N_MELS = 40
PARTIAL_FRAMES = 160
PARTIALS_PER_SECOND = 1.3
MIN_COVERAGE = 0.75
TARGET_DBFS = -30.0
EMBEDDING_DIM = 256
LAYERS = 3
#: Energy VAD: a 30 ms window is voiced when within this many dB of the 95th-percentile window.
VAD_RANGE_DB = 40.0
_VAD_WINDOW = 480
_VAD_SMOOTHING = 8
_VAD_MAX_SILENCE = 6
#: BLAS thread counts are process-wide, so LSTM runs (each limited to the encoder's threads) take turns.
_BLAS_LOCK = threading.Lock()


def weights_path() -> Path:
    """Where the package keeps ``pretrained.pt`` (found without importing the package, which needs torch).

    Raises:
        EngineUnavailable: when Resemblyzer is not installed or lacks its weights.
    """
    path = package_file("resemblyzer", "pretrained.pt")
    if path is None:
        raise EngineUnavailable("Resemblyzer weights missing: install it with `pip install --no-deps Resemblyzer==0.1.4`")
    return path


# --------------------------------------------------------------------- torch legacy checkpoint

_STORAGE_DTYPES = {
    "FloatStorage": np.float32,
    "DoubleStorage": np.float64,
    "HalfStorage": np.float16,
    "LongStorage": np.int64,
    "IntStorage": np.int32,
    "ShortStorage": np.int16,
    "CharStorage": np.int8,
    "ByteStorage": np.uint8,
    "BoolStorage": np.bool_,
}


class _Storage:
    """A storage named in the pickle; its bytes follow the pickle and are filled in afterwards."""

    def __init__(self, dtype: type[np.generic], numel: int) -> None:
        self.dtype = np.dtype(dtype)
        self.numel = numel
        self.data: np.ndarray | None = None


class _LazyTensor:
    """``torch._utils._rebuild_tensor_v2`` arguments, made an array once storages are read."""

    def __init__(self, storage: _Storage, offset: int, size: tuple[int, ...], stride: tuple[int, ...], *_: Any) -> None:
        self.storage, self.offset, self.size, self.stride = storage, offset, tuple(size), tuple(stride)

    def array(self) -> np.ndarray:
        data = self.storage.data
        assert data is not None, "storage not read"
        item = data.itemsize
        view = np.lib.stride_tricks.as_strided(
            data[self.offset :], shape=self.size, strides=tuple(s * item for s in self.stride), writeable=False
        )
        return np.array(view)


class _StateDict(dict[str, Any]):
    """Stands in for ``collections.OrderedDict``; torch pickles a ``_metadata`` attribute onto state dicts."""


class _LegacyUnpickler(pickle.Unpickler):
    """Unpickles a torch checkpoint's object tree, allowing only plain containers, tensors and storages."""

    def __init__(self, file: BinaryIO) -> None:
        super().__init__(file)
        self.storages: dict[str, _Storage] = {}

    def find_class(self, module: str, name: str) -> Any:
        if module == "collections" and name == "OrderedDict":
            return _StateDict
        if module == "torch._utils" and name in ("_rebuild_tensor_v2", "_rebuild_tensor"):
            return _LazyTensor
        if module == "torch" and name in _STORAGE_DTYPES:
            return _STORAGE_DTYPES[name]
        raise pickle.UnpicklingError(f"refusing to load {module}.{name} from a checkpoint")

    def persistent_load(self, pid: Any) -> _Storage:
        kind, dtype, key, _location, numel, view = pid
        if kind != "storage" or view is not None:
            raise pickle.UnpicklingError(f"unsupported persistent id {kind!r} (view={view!r})")
        return self.storages.setdefault(key, _Storage(dtype, numel))


def read_legacy_checkpoint(path: Path) -> dict[str, Any]:
    """Read a legacy (non-zip, torch < 1.6) ``torch.save`` file; tensors become numpy arrays."""
    with open(path, "rb") as file:
        if file.read(2) == b"PK":
            raise ValueError(f"{path} is a zip-format torch checkpoint; only the legacy format is supported")
        file.seek(0)
        for _ in range(3):  # magic number, protocol version, system info
            pickle.load(file)
        unpickler = _LegacyUnpickler(file)
        tree = unpickler.load()
        for key in pickle.load(file):
            storage = unpickler.storages[key]
            numel = int(np.frombuffer(file.read(8), dtype="<i8")[0])
            storage.data = np.frombuffer(file.read(numel * storage.dtype.itemsize), dtype=storage.dtype.newbyteorder("<"))
    return _materialise(tree)


def _materialise(node: Any) -> Any:
    if isinstance(node, _LazyTensor):
        return node.array()
    if isinstance(node, dict):
        return {key: _materialise(value) for key, value in node.items()}
    if isinstance(node, list | tuple):
        return type(node)(_materialise(value) for value in node)
    return node


# --------------------------------------------------------------------- network


def lstm_last_hidden(x: np.ndarray, state: dict[str, np.ndarray], layers: int = LAYERS) -> np.ndarray:
    """Final hidden state of the last layer of a torch ``nn.LSTM`` (batch first) over ``x`` ``(batch, time, in)``."""
    seq = x.astype(np.float32)
    for k in range(layers):
        w_ih, w_hh, bias = _gates_ifog(state, k)
        hidden = w_hh.shape[0]
        inputs = seq @ w_ih + bias
        h = np.zeros((seq.shape[0], hidden), dtype=np.float32)
        c = np.zeros_like(h)
        outputs = np.empty((seq.shape[0], seq.shape[1], hidden), dtype=np.float32)
        for t in range(seq.shape[1]):
            gates = inputs[:, t] + h @ w_hh
            sig = _sigmoid(gates[:, : 3 * hidden])
            c = sig[:, hidden : 2 * hidden] * c + sig[:, :hidden] * np.tanh(gates[:, 3 * hidden :])
            h = sig[:, 2 * hidden :] * np.tanh(c)
            outputs[:, t] = h
        seq = outputs
    return h


def _gates_ifog(state: dict[str, np.ndarray], layer: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Layer ``layer``'s input and recurrent weights (transposed) and summed bias, gates reordered from torch's
    (i, f, g, o) to (i, f, o, g) so that one sigmoid covers the first three."""
    w_ih, w_hh = state[f"lstm.weight_ih_l{layer}"], state[f"lstm.weight_hh_l{layer}"]
    bias = state[f"lstm.bias_ih_l{layer}"] + state[f"lstm.bias_hh_l{layer}"]
    hidden = w_hh.shape[1]
    order = np.r_[0 : 2 * hidden, 3 * hidden : 4 * hidden, 2 * hidden : 3 * hidden]
    return w_ih[order].T.copy(), w_hh[order].T.copy(), bias[order]


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (np.tanh(0.5 * x) + 1.0)


# --------------------------------------------------------------------- features


def normalize_volume(audio: np.ndarray, target_dbfs: float = TARGET_DBFS) -> np.ndarray:
    """Raise (never lower) the level of ``audio`` to ``target_dbfs`` RMS."""
    rms = float(np.sqrt(np.mean(np.square(audio, dtype=np.float64))))
    change_db = target_dbfs - 20.0 * np.log10(max(rms, 1e-10))
    return audio if change_db < 0 else (audio * 10 ** (change_db / 20.0)).astype(np.float32)


def trim_long_silences(audio: np.ndarray) -> np.ndarray:
    """Drop silences longer than about 0.2 s (resemblyzer's smoothing and dilation, an energy VAD)."""
    usable = audio[: audio.size - audio.size % _VAD_WINDOW]
    if usable.size == 0:
        return audio
    windows = usable.reshape(-1, _VAD_WINDOW).astype(np.float64)
    level = 10.0 * np.log10(np.mean(windows**2, axis=1) + 1e-12)
    voiced = (level > np.percentile(level, 95) - VAD_RANGE_DB).astype(np.float64)
    padded = np.concatenate([np.zeros((_VAD_SMOOTHING - 1) // 2), voiced, np.zeros(_VAD_SMOOTHING // 2)])
    smoothed = np.round(np.convolve(padded, np.ones(_VAD_SMOOTHING) / _VAD_SMOOTHING, mode="valid")) > 0
    dilated = np.convolve(smoothed, np.ones(_VAD_MAX_SILENCE + 1), mode="same") > 0
    return usable[np.repeat(dilated, _VAD_WINDOW)]


def mel_power(audio: np.ndarray) -> np.ndarray:
    """``(frames, 40)`` mel power spectrogram as ``resemblyzer.audio.wav_to_mel_spectrogram`` (centred, zero pad)."""
    padded = np.pad(audio, N_FFT // 2)
    power = power_spectrogram(frames(padded, N_FFT, HOP), periodic_window("hann", N_FFT, N_FFT))
    return (power @ mel_filterbank(MODEL_RATE, N_FFT, N_MELS).T).astype(np.float32)


def partial_starts(n_samples: int) -> list[int]:
    """First mel frame of each partial, as ``VoiceEncoder.compute_partial_slices`` (rate 1.3, coverage 0.75)."""
    n_frames = int(np.ceil((n_samples + 1) / HOP))
    step = round(MODEL_RATE / PARTIALS_PER_SECOND / HOP)
    starts = list(range(0, max(1, n_frames - PARTIAL_FRAMES + step + 1), step))
    coverage = (n_samples - starts[-1] * HOP) / (PARTIAL_FRAMES * HOP)
    if coverage < MIN_COVERAGE and len(starts) > 1:
        starts.pop()
    return starts


class ResemblyzerEncoder:
    """Resemblyzer utterance embeddings in numpy; ``embed`` is thread-safe.

    OpenBLAS's thread count is process-wide, so each LSTM run holds a module
    lock and limits BLAS to ``threads`` threads meanwhile (threadpoolctl);
    unlimited BLAS threads on a busy machine make the LSTM's many small matrix
    products ten times slower.
    """

    name = "resemblyzer"
    dim = EMBEDDING_DIM

    def __init__(self, threads: int = 1, path: Path | None = None) -> None:
        self.threads = max(1, threads)
        state = read_legacy_checkpoint(path or weights_path())["model_state"]
        self._state = {key: np.ascontiguousarray(value, dtype=np.float32) for key, value in state.items()}
        self._limit_blas = _blas_limiter()

    def embed(self, samples: np.ndarray, sample_rate: int) -> np.ndarray:
        """Unit-norm 256-d embedding of ``samples`` (mono, any rate, at least 0.5 s, not silent)."""
        audio = trim_long_silences(normalize_volume(prepare(samples, sample_rate)))
        if audio.size < HOP * 10:
            raise UnusableAudio("no speech left after trimming silences")
        starts = partial_starts(audio.size)
        needed = (starts[-1] + PARTIAL_FRAMES) * HOP
        mel = mel_power(np.pad(audio, (0, max(0, needed - audio.size))))
        partials = np.stack([mel[s : s + PARTIAL_FRAMES] for s in starts])
        with _BLAS_LOCK, self._limit_blas(self.threads):
            hidden = lstm_last_hidden(partials, self._state)
        raw = np.maximum(hidden @ self._state["linear.weight"].T + self._state["linear.bias"], 0.0)
        per_partial = raw / (np.linalg.norm(raw, axis=1, keepdims=True) + 1e-12)
        return unit(per_partial.mean(axis=0))


def _blas_limiter() -> Callable[[int], contextlib.AbstractContextManager[Any]]:
    """``limit(n)``: a context limiting BLAS to ``n`` threads (a no-op without threadpoolctl)."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return lambda _threads: contextlib.nullcontext()
    controller = ThreadpoolController()
    return lambda threads: controller.limit(limits=threads, user_api="blas")
