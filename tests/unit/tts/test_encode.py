"""Streaming audio encoders (engines.tts.encode): every format decodes back to what went in."""

from __future__ import annotations

import io
import shutil
import struct
import subprocess

import av
import numpy as np
import pytest
import soundfile as sf

from engines.errors import InvalidInput
from engines.tts.encode import FORMATS, StreamEncoder, content_type, encode_all

STREAMING = ["wav", "mp3", "ogg", "flac", "pcm"]
CONTAINERS = ["wav", "mp3", "ogg", "flac"]
LOSSY = ["mp3", "ogg"]

PCM_TYPE = "audio/pcm;rate={};channels=1;bits=16;encoding=signed-int;endianness=little"


def sine(seconds: float, rate: int, freq: float = 440.0, amplitude: float = 0.5) -> np.ndarray:
    t = np.arange(round(seconds * rate)) / rate
    return (amplitude * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def stream(fmt: str, samples: np.ndarray, rate: int, chunk: int, bitrate: int | None = None) -> list[bytes]:
    """Encode chunk by chunk; the last element is what ``close`` returned."""
    encoder = StreamEncoder(fmt, rate, bitrate)
    out = [encoder.write(samples[i : i + chunk]) for i in range(0, len(samples), chunk)]
    return [*out, encoder.close()]


def decode(data: bytes) -> tuple[np.ndarray, int]:
    """Decode with PyAV (FFmpeg) to float mono and its rate."""
    scale = {"s16": 2.0**15, "s16p": 2.0**15, "s32": 2.0**31, "s32p": 2.0**31}
    with av.open(io.BytesIO(data)) as container:
        rate = container.streams.audio[0].rate
        frames = [
            frame.to_ndarray().reshape(-1).astype(np.float64) / scale.get(frame.format.name, 1.0)
            for frame in container.decode(audio=0)
        ]
    return np.concatenate(frames), rate


def pcm16(samples: np.ndarray) -> np.ndarray:
    return np.rint(np.clip(samples, -1, 1) * 32767).astype(np.int16)


def dominant_hz(samples: np.ndarray, rate: int) -> float:
    spectrum = np.abs(np.fft.rfft(samples * np.hanning(len(samples))))
    return float(np.fft.rfftfreq(len(samples), 1 / rate)[np.argmax(spectrum)])


def test_content_types() -> None:
    assert FORMATS == {
        "wav": "audio/wav",
        "mp3": "audio/mpeg",
        "ogg": "audio/ogg;codecs=opus",
        "flac": "audio/flac",
        "pcm": "audio/pcm",
    }
    assert content_type("pcm", 24000) == PCM_TYPE.format(24000)
    assert content_type("mp3", 24000) == "audio/mpeg"
    assert StreamEncoder("pcm", 22050).content_type == PCM_TYPE.format(22050)
    with pytest.raises(InvalidInput, match="aac"):
        content_type("aac", 24000)


@pytest.mark.parametrize("fmt", STREAMING)
def test_first_second_of_audio_already_gives_bytes(fmt: str) -> None:
    rate = 24000
    encoder = StreamEncoder(fmt, rate)
    first = encoder.write(sine(1.0, rate))
    assert len(first) > 0
    second = encoder.write(sine(1.0, rate))
    assert len(second) > 0
    encoder.close()


# Decoded duration may exceed the input by codec padding: MP3 without a LAME header keeps the
# encoder delay and pads to whole 1152-sample frames; Opus trims via pre-skip and the end granule.
PADDING_S = {"wav": 0.0, "flac": 0.0, "ogg": 0.0, "mp3": 2 * 1152 / 22050}


@pytest.mark.parametrize("rate", [22050, 24000])
@pytest.mark.parametrize("fmt", CONTAINERS)
def test_streamed_bytes_concatenate_to_a_valid_file(fmt: str, rate: int) -> None:
    samples = sine(2.5, rate)
    data = b"".join(stream(fmt, samples, rate, chunk=rate // 3))
    decoded, decoded_rate = decode(data)
    assert decoded_rate == (48000 if fmt == "ogg" else rate)
    duration = len(decoded) / decoded_rate
    assert 2.5 - 0.05 <= duration <= 2.5 + 0.05 + PADDING_S[fmt]


@pytest.mark.parametrize("fmt", CONTAINERS)
def test_whole_clip_encoding_has_exact_headers(fmt: str) -> None:
    rate = 24000
    samples = sine(1.7, rate)
    decoded, decoded_rate = decode(encode_all(fmt, samples, rate))
    assert abs(len(decoded) / decoded_rate - 1.7) <= 0.05  # MP3: the LAME header trims delay and padding


@pytest.mark.parametrize("fmt", ["wav", "flac"])
def test_lossless_formats_round_trip_exactly(fmt: str) -> None:
    rate = 24000
    samples = sine(1.3, rate, freq=1000.0, amplitude=0.9)
    for data in (b"".join(stream(fmt, samples, rate, chunk=5000)), encode_all(fmt, samples, rate)):
        decoded, decoded_rate = decode(data)
        assert decoded_rate == rate
        assert np.array_equal(np.rint(decoded * 32768).astype(np.int16), pcm16(samples))
        assert np.corrcoef(decoded, samples)[0, 1] > 0.9999


def test_pcm_is_raw_little_endian_int16() -> None:
    samples = np.array([0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -3.0, np.nan, np.inf, -np.inf], dtype=np.float32)
    data = b"".join(stream("pcm", samples, 16000, chunk=3))
    assert np.frombuffer(data, "<i2").tolist() == [0, 16384, -16384, 32767, -32767, 32767, -32767, 0, 32767, -32767]
    long = sine(0.5, 16000)
    assert np.array_equal(np.frombuffer(encode_all("pcm", long, 16000), "<i2"), pcm16(long))


@pytest.mark.parametrize("fmt", LOSSY)
def test_lossy_formats_keep_the_tone(fmt: str) -> None:
    rate = 24000
    samples = sine(2.0, rate)
    decoded, decoded_rate = decode(b"".join(stream(fmt, samples, rate, chunk=rate)))
    middle = decoded[decoded_rate // 4 : -decoded_rate // 4]
    assert abs(dominant_hz(middle, decoded_rate) - 440) < 5
    rms_db = 20 * np.log10(np.sqrt(np.mean(middle**2)) / np.sqrt(np.mean(samples**2)))
    assert abs(rms_db) < 1.0


def test_loud_input_is_clipped_not_wrapped() -> None:
    rate = 24000
    loud = np.full(rate // 2, 4.0, dtype=np.float32)
    decoded, _ = decode(b"".join(stream("wav", loud, rate, chunk=1000)))
    assert decoded.min() > 0.99


def test_streamed_wav_header_uses_the_unknown_length_convention() -> None:
    rate = 24000
    first = StreamEncoder("wav", rate).write(sine(0.1, rate))
    riff, riff_size, wave = struct.unpack_from("<4sI4s", first, 0)
    assert (riff, riff_size, wave) == (b"RIFF", 0xFFFFFFFF, b"WAVE")
    assert first[12:16] == b"fmt "
    channels, sample_rate = struct.unpack_from("<HI", first, 22)
    assert (channels, sample_rate) == (1, rate)
    assert first[36:44] == b"data" + b"\xff\xff\xff\xff"


def test_libsndfile_reads_streamed_wav_and_whole_flac() -> None:
    rate = 24000
    samples = sine(1.2, rate)
    data, sf_rate = sf.read(io.BytesIO(b"".join(stream("wav", samples, rate, chunk=7000))), dtype="int16")
    assert sf_rate == rate and np.array_equal(data, pcm16(samples))
    whole, sf_rate = sf.read(io.BytesIO(encode_all("flac", samples, rate)), dtype="int16")
    assert sf_rate == rate and np.array_equal(whole, pcm16(samples))


def test_streamed_flac_header_leaves_the_length_unknown() -> None:
    """STREAMINFO is written before the audio: total samples 0 and MD5 0 ("unknown"), which FLAC allows."""
    rate = 24000
    data = b"".join(stream("flac", sine(0.5, rate), rate, chunk=rate))
    assert data[:4] == b"fLaC"
    streaminfo = data[8:42]
    total_samples = int.from_bytes(streaminfo[13:18], "big") & 0xFFFFFFFFF
    assert total_samples == 0 and streaminfo[18:34] == bytes(16)
    assert len(decode(data)[0]) == rate // 2  # FFmpeg reads to the end regardless


@pytest.mark.skipif(shutil.which("ffprobe") is None, reason="ffprobe is not installed")
@pytest.mark.parametrize("fmt", CONTAINERS)
def test_ffmpeg_cli_decodes_streamed_output(fmt: str, tmp_path: object) -> None:
    rate = 22050
    data = b"".join(stream(fmt, sine(1.5, rate), rate, chunk=rate // 2))
    result = subprocess.run(
        ["ffmpeg", "-v", "error", "-i", "pipe:0", "-f", "s16le", "-ac", "1", "pipe:1"],
        input=data,
        capture_output=True,
        check=True,
        timeout=60,
    )
    out_rate = 48000 if fmt == "ogg" else rate
    assert result.stderr == b""
    assert abs(len(result.stdout) / 2 / out_rate - 1.5) <= 0.05 + PADDING_S[fmt]


def test_bitrate_sets_lossy_size() -> None:
    rate = 24000
    noise = np.random.default_rng(0).uniform(-0.5, 0.5, 3 * rate).astype(np.float32)
    small, large = (len(encode_all("mp3", noise, rate, bitrate=b)) for b in (32_000, 128_000))
    assert 3 * small < large
    small, large = (len(encode_all("ogg", noise, rate, bitrate=b)) for b in (16_000, 96_000))
    assert 3 * small < large
    assert encode_all("wav", noise, rate, bitrate=64_000) == encode_all("wav", noise, rate)  # ignored when lossless


def test_rates_a_codec_lacks_are_resampled() -> None:
    decoded, decoded_rate = decode(encode_all("mp3", sine(1.0, 20000), 20000))
    assert decoded_rate == 22050
    assert abs(len(decoded) / decoded_rate - 1.0) <= 0.05


@pytest.mark.parametrize("fmt", STREAMING)
def test_empty_writes_and_closing(fmt: str) -> None:
    encoder = StreamEncoder(fmt, 24000)
    assert encoder.write(np.zeros(0, np.float32)) == b""
    encoder.close()
    assert encoder.close() == b""
    with pytest.raises(ValueError, match="closed"):
        encoder.write(np.zeros(10, np.float32))


def test_context_manager_closes() -> None:
    with StreamEncoder("flac", 24000) as encoder:
        encoder.write(sine(0.2, 24000))
    assert encoder.close() == b""


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (("aac", 24000), "unknown audio format"),
        (("wav", 4000), "sample rate"),
        (("wav", 24000.0), "sample rate"),
        (("mp3", 24000, 1000), "bitrate"),
        (("ogg", 24000, 1_000_000), "bitrate"),
    ],
)
def test_bad_settings_are_invalid_input(args: tuple[object, ...], match: str) -> None:
    with pytest.raises(InvalidInput, match=match):
        StreamEncoder(*args)  # type: ignore[arg-type]


@pytest.mark.parametrize("samples", [np.zeros((100, 2), np.float32), np.zeros(100, np.int16)])
def test_samples_must_be_float_mono(samples: np.ndarray) -> None:
    with pytest.raises(InvalidInput):
        StreamEncoder("wav", 24000).write(samples)


def test_numpy_integer_rates_are_accepted() -> None:
    assert StreamEncoder("pcm", np.int64(16000)).content_type == PCM_TYPE.format(16000)


def test_column_vectors_are_accepted() -> None:
    assert len(StreamEncoder("pcm", 24000).write(np.zeros((100, 1), np.float32))) == 200
