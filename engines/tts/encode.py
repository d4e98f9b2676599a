"""Streaming audio encoders for speech responses.

One :class:`StreamEncoder` per response turns float32 mono chunks into bytes of the
requested format as they are produced, so the first sentence can be played while
the rest is still being synthesised. Every container is written to a non-seekable
sink, which is what makes streaming possible and fixes a few header fields to their
"unknown" values (see ``docs/tts-text-and-formats.md``):

* ``wav``  — PCM s16le in RIFF, sizes 0xFFFFFFFF ("until end of stream"); PyAV (FFmpeg's wav muxer).
* ``mp3``  — libmp3lame through PyAV, bare MPEG frames (no ID3 tag; no Xing header when streamed).
* ``ogg``  — Opus through PyAV (libopus), Ogg pages flushed every 100 ms.
* ``flac`` — FFmpeg's FLAC encoder through PyAV; streamed STREAMINFO has total samples 0 (unknown) and no MD5.
* ``pcm``  — raw signed 16-bit little-endian mono, no header (numpy only).

:func:`encode_all` writes to a seekable buffer instead, so whole-file answers get exact
headers (WAV sizes, FLAC length and MD5, the MP3 Xing/LAME header).
"""

from __future__ import annotations

import dataclasses
import io
from fractions import Fraction
from typing import Any, Protocol

import numpy as np

from engines.errors import EngineFailure, InvalidInput

#: Output format → HTTP content type (``pcm`` also names its rate; use :func:`content_type`).
FORMATS: dict[str, str] = {
    "wav": "audio/wav",
    "mp3": "audio/mpeg",
    "ogg": "audio/ogg;codecs=opus",
    "flac": "audio/flac",
    "pcm": "audio/pcm",
}

MIN_SAMPLE_RATE = 8000
MAX_SAMPLE_RATE = 192000


@dataclasses.dataclass(frozen=True)
class _Codec:
    """How one format is produced with PyAV."""

    container: str
    codec: str
    sample_format: str  # what we hand to PyAV: "s16" (lossless, exact rounding) or "flt"
    default_bitrate: int | None = None
    bitrate_range: tuple[int, int] | None = None
    rates: tuple[int, ...] = ()  # rates the codec accepts; others are resampled to the nearest higher one
    muxer_options: tuple[tuple[str, str], ...] = ()


_CODECS: dict[str, _Codec] = {
    "wav": _Codec("wav", "pcm_s16le", "s16"),
    "flac": _Codec("flac", "flac", "s16"),
    "mp3": _Codec(
        "mp3",
        "libmp3lame",
        "flt",
        default_bitrate=64_000,
        bitrate_range=(8_000, 320_000),
        rates=(8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000),
        muxer_options=(("id3v2_version", "0"),),
    ),
    "ogg": _Codec(
        "ogg",
        "libopus",
        "flt",
        default_bitrate=32_000,
        bitrate_range=(6_000, 256_000),
        rates=(8000, 12000, 16000, 24000, 48000),
        muxer_options=(("page_duration", "100000"),),  # µs: one Ogg page per 100 ms keeps bytes flowing
    ),
}


def content_type(fmt: str, sample_rate: int) -> str:
    """The ``Content-Type`` of a response in ``fmt`` (raw PCM names its rate and channel count)."""
    base = FORMATS.get(fmt)
    if base is None:
        raise InvalidInput(f"unknown audio format {fmt!r}; choose one of {', '.join(FORMATS)}")
    # Not audio/L16: RFC 2586 makes L16 big-endian, and this stream is little-endian like most speech APIs'.
    return f"{base};rate={sample_rate};channels=1;bits=16;encoding=signed-int;endianness=little" if fmt == "pcm" else base


class _Sink(Protocol):
    def write(self, data: bytes) -> int: ...


class _Collector:
    """A write-only (hence non-seekable) file object that hands back what was written since last asked."""

    def __init__(self) -> None:
        self._chunks: list[bytes] = []

    def write(self, data: bytes) -> int:
        self._chunks.append(bytes(data))
        return len(data)

    def take(self) -> bytes:
        out = b"".join(self._chunks)
        self._chunks.clear()
        return out


def _as_float(samples: np.ndarray) -> np.ndarray:
    """Float32 mono in ``[-1, 1]``: NaN → 0, ±inf and overs clipped."""
    array = np.asarray(samples)
    if array.ndim == 2 and 1 in array.shape:
        array = array.reshape(-1)
    if array.ndim != 1:
        raise InvalidInput(f"expected mono samples (1-D), got shape {array.shape}")
    if not np.issubdtype(array.dtype, np.floating):
        raise InvalidInput(f"expected float samples in [-1, 1], got {array.dtype}")
    array = np.nan_to_num(array.astype(np.float32, copy=False), nan=0.0, posinf=1.0, neginf=-1.0)
    return np.clip(array, -1.0, 1.0)


def _to_int16(samples: np.ndarray) -> np.ndarray:
    return np.rint(samples * 32767.0).astype("<i2")


class _Writer:
    """Encodes into ``sink``; PyAV for every format but raw PCM."""

    def __init__(self, fmt: str, sample_rate: int, bitrate: int | None, sink: _Sink) -> None:
        if fmt not in FORMATS:
            raise InvalidInput(f"unknown audio format {fmt!r}; choose one of {', '.join(FORMATS)}")
        if not isinstance(sample_rate, int | np.integer) or not MIN_SAMPLE_RATE <= sample_rate <= MAX_SAMPLE_RATE:
            raise InvalidInput(f"sample rate must be {MIN_SAMPLE_RATE}–{MAX_SAMPLE_RATE} Hz, got {sample_rate!r}")
        self.fmt = fmt
        self.sample_rate = int(sample_rate)  # engines may hand back numpy integers
        self._sink = sink
        self._written = 0
        self._closed = False
        self._spec = _CODECS.get(fmt)
        self._bitrate = _check_bitrate(self._spec, bitrate)
        self._container: Any = None
        self._stream: Any = None
        if self._spec is not None:
            self._open()

    def _open(self) -> None:
        import av  # PyAV pulls in FFmpeg's libraries; only encoders need it

        spec = self._spec
        assert spec is not None
        rate = _codec_rate(spec, self.sample_rate)
        # bitexact: no encoder tag (WAV LIST chunk); no padding block (FLAC would reserve 8 KiB for tags)
        options = {"fflags": "+bitexact", "metadata_header_padding": "0", **dict(spec.muxer_options)}
        try:
            self._container = av.open(self._sink, mode="w", format=spec.container, options=options)
            self._stream = self._container.add_stream(spec.codec, rate=rate)
            self._stream.layout = "mono"
            if self._bitrate is not None:
                self._stream.bit_rate = self._bitrate
        except av.FFmpegError as exc:
            raise EngineFailure(f"cannot start the {self.fmt} encoder: {exc}") from exc

    def feed(self, samples: np.ndarray) -> None:
        if self._closed:
            raise ValueError("the encoder is closed")
        clean = _as_float(samples)
        if clean.size == 0:
            return
        if self._spec is None:
            self._sink.write(_to_int16(clean).tobytes())
            return
        import av

        data = _to_int16(clean) if self._spec.sample_format == "s16" else clean
        frame = av.AudioFrame.from_ndarray(data.reshape(1, -1), format=self._spec.sample_format, layout="mono")
        frame.sample_rate = self.sample_rate
        frame.time_base = Fraction(1, self.sample_rate)
        frame.pts = self._written
        self._written += clean.size
        self._encode(frame)

    def finish(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._spec is None:
            return
        import av

        try:
            self._encode(None)
            if self._written == 0:
                self._container.start_encoding()  # an empty stream still gets its header
            self._container.close()
        except av.FFmpegError as exc:
            raise EngineFailure(f"the {self.fmt} encoder failed while finishing: {exc}") from exc

    def _encode(self, frame: Any) -> None:
        import av

        try:
            for packet in self._stream.encode(frame):
                self._container.mux(packet)
        except av.FFmpegError as exc:
            raise EngineFailure(f"the {self.fmt} encoder failed: {exc}") from exc


def _check_bitrate(spec: _Codec | None, bitrate: int | None) -> int | None:
    """The bit rate to use: lossy formats only (``None`` → their default); lossless formats ignore it."""
    if spec is None or spec.bitrate_range is None:
        return None
    if bitrate is None:
        return spec.default_bitrate
    low, high = spec.bitrate_range
    if not isinstance(bitrate, int) or not low <= bitrate <= high:
        raise InvalidInput(f"bitrate for {spec.container} must be {low}–{high} bit/s, got {bitrate!r}")
    return bitrate


def _codec_rate(spec: _Codec, sample_rate: int) -> int:
    """The input rate if the codec takes it, else the nearest higher rate it takes (PyAV resamples)."""
    if not spec.rates or sample_rate in spec.rates:
        return sample_rate
    higher = [rate for rate in spec.rates if rate > sample_rate]
    return min(higher) if higher else max(spec.rates)


class StreamEncoder:
    """Encodes one response: :meth:`write` each chunk as it is synthesised, then :meth:`close`.

    Args:
        fmt: ``wav``, ``mp3``, ``ogg`` (Opus), ``flac`` or ``pcm``.
        sample_rate: rate of the samples passed to :meth:`write`, in Hz.
        bitrate: bit/s for ``mp3`` (8k–320k, default 64k) and ``ogg`` (6k–256k, default 32k); ignored otherwise.

    Raises:
        InvalidInput: an unknown format, a sample rate or bitrate out of range.
    """

    def __init__(self, fmt: str, sample_rate: int, bitrate: int | None = None) -> None:
        self._collector = _Collector()
        self._writer = _Writer(fmt, sample_rate, bitrate, self._collector)

    @property
    def content_type(self) -> str:
        return content_type(self._writer.fmt, self._writer.sample_rate)

    def write(self, samples: np.ndarray) -> bytes:
        """Encode float32 mono samples in ``[-1, 1]``; returns the bytes ready now (may be ``b""``)."""
        self._writer.feed(samples)
        return self._collector.take()

    def close(self) -> bytes:
        """Flush the codec and write the trailer; returns the last bytes. Closing twice returns ``b""``."""
        self._writer.finish()
        return self._collector.take()

    def __enter__(self) -> StreamEncoder:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc_info: object) -> None:
        """Release the encoder; bytes not yet taken are dropped (use :meth:`close` to get them)."""
        try:
            self._writer.finish()
        except EngineFailure:
            if exc_type is None:
                raise
        self._collector.take()


def encode_all(fmt: str, samples: np.ndarray, sample_rate: int, bitrate: int | None = None) -> bytes:
    """Encode a whole clip into a seekable buffer, so headers carry exact lengths (and FLAC its MD5)."""
    buffer = io.BytesIO()
    writer = _Writer(fmt, sample_rate, bitrate, buffer)
    writer.feed(samples)
    writer.finish()
    return buffer.getvalue()
