"""The voice-sample front end on real files: every accepted format, every refusal, in the contract's order.

Speech is real: Harvard sentences from Debian's codec2-examples (8 kHz, raised
to the tested rates with ffmpeg; upsampled speech is still speech). Files are
built once per module in a temporary folder.
"""

from __future__ import annotations

import shutil
import subprocess
import wave
from pathlib import Path

import numpy as np
import pytest

from engines.audio import decode as audio
from engines.audio.decode import AudioClip, decode, probe_audio
from engines.audio.vad import SileroVad
from engines.errors import (
    BadVoiceSample,
    NoSpeechFound,
    SampleDuration,
    SampleTooNoisy,
    UnsupportedAudioFormat,
)
from engines.voice.sample import CheckedSample, SampleLimits, inspect_sample

HARVARD = Path("/usr/share/codec2/raw/hts.raw")  # 24 s, 8 kHz s16le mono
pytestmark = pytest.mark.skipif(
    not HARVARD.is_file() or shutil.which("ffmpeg") is None, reason="needs ffmpeg and Debian's codec2-examples"
)

#: name -> (file name, ffmpeg output options, expected format, codec, rate)
ACCEPTED: dict[str, tuple[str, list[str], str, str, int]] = {
    "wav": ("speech.wav", ["-c:a", "pcm_s16le"], "wav", "pcm_s16le", 16_000),
    "wav-f32": ("f32.wav", ["-ar", "44100", "-c:a", "pcm_f32le"], "wav", "pcm_f32le", 44_100),
    "mp3": ("speech.mp3", ["-ar", "22050", "-c:a", "libmp3lame", "-b:a", "64k"], "mp3", "mp3", 22_050),
    "flac": ("speech.flac", ["-ar", "48000", "-c:a", "flac", "-sample_fmt", "s32"], "flac", "flac", 48_000),
    "m4a-aac": ("speech.m4a", ["-ar", "44100", "-c:a", "aac", "-b:a", "96k"], "m4a", "aac", 44_100),
    "m4a-alac": ("alac.m4a", ["-c:a", "alac"], "m4a", "alac", 16_000),
    "ogg-vorbis": ("speech.ogg", ["-ar", "44100", "-c:a", "libvorbis"], "ogg", "vorbis", 44_100),
    "ogg-opus": ("speech.opus", ["-c:a", "libopus", "-b:a", "48k"], "ogg", "opus", 48_000),
    "ogg-flac": ("flac.oga", ["-c:a", "flac", "-f", "ogg"], "ogg", "flac", 16_000),
}


def ffmpeg(*args: str | Path) -> None:
    subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", *map(str, args)], check=True)


def harvard(seconds: float, rate: int, dst: Path, *options: str) -> Path:
    """``seconds`` of the Harvard sentences at ``rate`` Hz (looped when longer than the recording)."""
    src = ["-f", "s16le", "-ar", "8000", "-ac", "1", "-stream_loop", "-1", "-i", str(HARVARD), "-t", f"{seconds}"]
    ffmpeg(*src, "-af", f"aresample={rate}:resampler=soxr", *options, dst)
    return dst


def write_wav(path: Path, samples: np.ndarray, rate: int) -> Path:
    """16-bit PCM WAV of mono (1-D) or multichannel (frames x channels) float samples."""
    frames = samples if samples.ndim == 2 else samples[:, None]
    with wave.open(str(path), "wb") as out:
        out.setnchannels(frames.shape[1])
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes((np.clip(frames, -1, 1) * 32767).astype("<i2").tobytes())
    return path


def read_wav(path: Path) -> np.ndarray:
    with wave.open(str(path), "rb") as src:
        return np.frombuffer(src.readframes(src.getnframes()), dtype="<i2").astype(np.float32) / 32768


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("voice-samples")


@pytest.fixture(scope="module")
def speech(folder: Path) -> Path:
    """12 s of real speech, 16 kHz mono WAV: the source of every encoded variant."""
    return harvard(12, 16_000, folder / "speech.wav")


@pytest.fixture(scope="module")
def encoded(folder: Path, speech: Path) -> dict[str, Path]:
    files = {"wav": speech}
    for name, (file_name, options, *_) in ACCEPTED.items():
        if name != "wav":
            ffmpeg("-i", speech, *options, folder / file_name)
            files[name] = folder / file_name
    return files


@pytest.fixture(scope="module")
def vad() -> SileroVad:
    return SileroVad()


# --------------------------------------------------------------------- format, by content


@pytest.mark.parametrize("name", list(ACCEPTED))
def test_every_accepted_format_probes_and_decodes(encoded: dict[str, Path], name: str) -> None:
    _, _, fmt, codec, rate = ACCEPTED[name]
    info = probe_audio(encoded[name])
    assert (info.format, info.codec, info.sample_rate, info.channels) == (fmt, codec, rate, 1)
    assert info.duration_s == pytest.approx(12.0, abs=0.1)
    clip = decode(encoded[name], info=info)
    assert clip.sample_rate == rate and clip.samples.dtype == np.float32 and clip.samples.ndim == 1
    assert clip.duration_s == pytest.approx(12.0, abs=0.1)
    assert 0.1 < np.abs(clip.samples).max() <= 1.0


@pytest.mark.parametrize("name", ["mp3", "m4a-aac", "ogg-opus"])
def test_lossy_decodes_match_the_source(encoded: dict[str, Path], speech: Path, name: str) -> None:
    source = read_wav(speech)
    clip = decode(encoded[name], 16_000)
    assert clip.sample_rate == 16_000
    n = min(len(source), len(clip.samples))
    lag = _lag(clip.samples[:n], source[:n])
    a, b = clip.samples[max(lag, 0) : n], source[: n - max(lag, 0)]
    assert abs(lag) < 0.01 * 16_000  # codec priming is trimmed or tiny
    assert np.corrcoef(a[: len(b)], b[: len(a)])[0, 1] > 0.9


def test_content_decides_not_the_name(folder: Path, speech: Path) -> None:
    renamed = folder / "really-a-wav.mp3"
    shutil.copy(speech, renamed)
    assert probe_audio(renamed).format == "wav"


def test_cover_art_is_not_video(folder: Path, speech: Path) -> None:
    cover = folder / "cover.png"
    ffmpeg("-f", "lavfi", "-i", "color=c=red:size=32x32", "-frames:v", "1", cover)
    tagged = folder / "tagged.mp3"
    art = ["-map", "1:v", "-c:v", "png", "-disposition:v", "attached_pic"]
    ffmpeg("-i", speech, "-i", cover, "-map", "0:a", "-c:a", "libmp3lame", *art, tagged)
    assert probe_audio(tagged).format == "mp3"
    assert decode(tagged).duration_s == pytest.approx(12.0, abs=0.1)


def test_stereo_is_averaged(folder: Path, speech: Path) -> None:
    mono = read_wav(speech)[:32_000]
    stereo = write_wav(folder / "stereo.wav", np.stack([mono, np.zeros_like(mono)], axis=1), 16_000)
    assert probe_audio(stereo).channels == 2
    clip = decode(stereo)
    np.testing.assert_allclose(clip.samples, mono / 2, atol=1e-4)


def test_decode_resamples_with_soxr(encoded: dict[str, Path]) -> None:
    clip = decode(encoded["flac"], 24_000)
    assert clip.sample_rate == 24_000
    assert len(clip.samples) == pytest.approx(12 * 24_000, abs=2)
    assert clip.resampled(24_000) is clip


def test_decode_is_bounded(folder: Path) -> None:
    long = harvard(75, 16_000, folder / "long.wav")
    assert decode(long).duration_s == pytest.approx(audio.MAX_DECODE_S, abs=0.05)


def test_duration_from_decoding_when_the_container_is_silent(speech: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = audio._ffprobe_json

    def without_durations(file: Path) -> dict:
        data = real(file)
        data["format"].pop("duration", None)
        for stream in data["streams"]:
            stream.pop("duration", None)
        return data

    monkeypatch.setattr(audio, "_ffprobe_json", without_durations)
    assert probe_audio(speech).duration_s == pytest.approx(12.0, abs=0.05)


@pytest.fixture(scope="module")
def refused(folder: Path, speech: Path) -> dict[str, Path]:
    files = {
        "webm-opus": folder / "speech.webm",
        "mkv-flac": folder / "speech.mkv",
        "aiff": folder / "speech.aiff",
        "mp3-in-mkv": folder / "speech.mka",
    }
    ffmpeg("-i", speech, "-c:a", "libopus", files["webm-opus"])
    ffmpeg("-i", speech, "-c:a", "flac", files["mkv-flac"])
    ffmpeg("-i", speech, "-c:a", "pcm_s16be", files["aiff"])
    ffmpeg("-i", speech, "-c:a", "libmp3lame", files["mp3-in-mkv"])
    files["video-mp4"] = folder / "video.mp4"
    video = ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=5:duration=12"]
    ffmpeg(*video, "-i", speech, "-c:v", "mpeg4", "-c:a", "aac", files["video-mp4"])
    files["text-as-wav"] = folder / "notes.wav"
    files["text-as-wav"].write_text("this is not audio\n" * 50)
    files["random-as-mp3"] = folder / "noise.mp3"
    files["random-as-mp3"].write_bytes(np.random.default_rng(0).integers(0, 256, 64_000, dtype=np.uint8).tobytes())
    files["png"] = folder / "image.wav"
    files["png"].write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(200))
    files["m4a-mp3-codec"] = folder / "mp3.mov"
    ffmpeg("-i", speech, "-c:a", "libmp3lame", "-f", "mov", files["m4a-mp3-codec"])
    return files


@pytest.mark.parametrize(
    "name", ["webm-opus", "mkv-flac", "aiff", "mp3-in-mkv", "video-mp4", "text-as-wav", "random-as-mp3", "png", "m4a-mp3-codec"]
)
def test_other_content_is_unsupported(refused: dict[str, Path], vad: SileroVad, name: str) -> None:
    with pytest.raises(UnsupportedAudioFormat) as caught:
        inspect_sample(refused[name], vad, None)
    assert caught.value.args[0]
    assert "WAV" in str(caught.value) or "could not" in str(caught.value)
    with pytest.raises(UnsupportedAudioFormat):
        decode(refused[name])  # decode probes too: never decodes a refused format


def test_missing_file_is_unsupported(folder: Path) -> None:
    with pytest.raises(UnsupportedAudioFormat, match="not found"):
        probe_audio(folder / "absent.wav")


# --------------------------------------------------------------------- the whole check


@pytest.mark.parametrize("name", ["wav", "mp3", "m4a-aac", "ogg-opus", "flac"])
def test_clean_speech_passes(encoded: dict[str, Path], vad: SileroVad, name: str) -> None:
    checked = inspect_sample(encoded[name], vad, None)
    assert isinstance(checked, CheckedSample)
    assert checked.snr_db >= 20
    assert 6.0 < checked.speech_s <= 12.0
    assert checked.clip.sample_rate == min(ACCEPTED[name][4], 48_000)
    assert checked.clip.duration_s == pytest.approx(12.0, abs=0.1)
    assert not checked.denoised
    assert all(0 <= s < e <= checked.clip.duration_s for s, e in checked.speech)


def test_high_rates_are_brought_down_to_48k(folder: Path, vad: SileroVad) -> None:
    wide = harvard(12, 96_000, folder / "wide.flac")
    checked = inspect_sample(wide, vad, None)
    assert checked.info.sample_rate == 96_000
    assert checked.clip.sample_rate == 48_000
    assert checked.clip.duration_s == pytest.approx(12.0, abs=0.05)


def test_low_sample_rate_is_a_bad_sample(folder: Path, vad: SileroVad) -> None:
    narrow = harvard(12, 8_000, folder / "narrow.wav")
    with pytest.raises(BadVoiceSample, match="sample rate 8000 Hz is under the 16000 Hz minimum") as caught:
        inspect_sample(narrow, vad, None)
    assert type(caught.value) is BadVoiceSample


def test_rate_is_checked_before_duration(folder: Path, vad: SileroVad) -> None:
    short_and_narrow = harvard(3, 8_000, folder / "short-narrow.wav")
    with pytest.raises(BadVoiceSample, match="sample rate") as caught:
        inspect_sample(short_and_narrow, vad, None)
    assert not isinstance(caught.value, SampleDuration)


@pytest.mark.parametrize(("seconds", "shown"), [(5, "5.0 s"), (70, "70.0 s")])
def test_duration_outside_the_range(folder: Path, vad: SileroVad, seconds: int, shown: str) -> None:
    sample = harvard(seconds, 16_000, folder / f"speech-{seconds}s.flac")
    with pytest.raises(SampleDuration, match=rf"lasts {shown}.*between 10 and 60 s"):
        inspect_sample(sample, vad, None)


def test_limits_are_configurable(speech: Path, vad: SileroVad) -> None:
    with pytest.raises(SampleDuration):
        inspect_sample(speech, vad, None, SampleLimits(min_s=15.0))
    with pytest.raises(SampleTooNoisy):
        inspect_sample(speech, vad, None, SampleLimits(min_snr_db=79.0))
    with pytest.raises(ValueError, match="max_s"):
        SampleLimits(max_s=600.0)  # longer than decode reads


@pytest.fixture(scope="module")
def no_speech(folder: Path) -> dict[str, Path]:
    rate, seconds = 16_000, 12
    rng = np.random.default_rng(7)
    t = np.arange(rate * seconds) / rate
    notes = 220.0 * 2 ** (np.array([0, 4, 7, 12, 7, 4, 0, 5, 9, 12, 9, 5]) / 12)
    freq = np.repeat(notes, rate)[: len(t)]
    phase = 2 * np.pi * np.cumsum(freq) / rate
    envelope = np.tile(np.minimum(1, np.linspace(6, 0, rate)), seconds)[: len(t)]  # plucked: attack, decay
    melody = 0.3 * envelope * (np.sin(phase) + 0.5 * np.sin(2 * phase) + 0.25 * np.sin(3 * phase))
    return {
        "white-noise": write_wav(folder / "white.wav", 0.1 * rng.standard_normal(len(t)), rate),
        "silence": write_wav(folder / "silence.wav", np.zeros(len(t)), rate),
        "melody": write_wav(folder / "melody.wav", melody, rate),
        "hum": write_wav(folder / "hum.wav", 0.2 * np.sin(2 * np.pi * 50 * t), rate),
    }


@pytest.mark.parametrize("name", ["white-noise", "silence", "melody", "hum"])
def test_no_speech(no_speech: dict[str, Path], vad: SileroVad, name: str) -> None:
    with pytest.raises(NoSpeechFound, match="No speech"):
        inspect_sample(no_speech[name], vad, None)


def test_noisy_speech_is_refused_with_its_estimate(folder: Path, speech: Path, vad: SileroVad) -> None:
    clean = read_wav(speech)
    noise = np.random.default_rng(3).standard_normal(len(clean))
    active = clean[np.abs(clean) > 0.01]
    noise *= np.sqrt(np.mean(active**2) / 10 ** (5 / 10))  # ~5 dB under the speech
    noisy = write_wav(folder / "noisy.wav", clean + noise, 16_000)
    with pytest.raises(SampleTooNoisy, match=r"estimated SNR -?\d+\.\d dB, at least 20 dB") as caught:
        inspect_sample(noisy, vad, None)
    estimate = float(str(caught.value).split("estimated SNR ")[1].split(" dB")[0])
    assert 0 <= estimate <= 12


def test_the_snr_floor_applies_before_denoising(folder: Path, speech: Path, vad: SileroVad) -> None:
    class Cleaner:
        calls = 0

        def denoise(self, clip: AudioClip) -> AudioClip:
            Cleaner.calls += 1
            return clip

    noisy = folder / "noisy.wav"  # written by the previous test when run in order; rebuild otherwise
    if not noisy.is_file():
        clean = read_wav(speech)
        write_wav(noisy, clean + 0.1 * np.random.default_rng(3).standard_normal(len(clean)), 16_000)
    with pytest.raises(SampleTooNoisy):
        inspect_sample(noisy, vad, Cleaner())  # type: ignore[arg-type]
    assert Cleaner.calls == 0
    checked = inspect_sample(speech, vad, Cleaner())  # type: ignore[arg-type]
    assert checked.snr_db >= SampleLimits().clean_snr_db and not checked.denoised and Cleaner.calls == 0  # nothing to take out
    hissing = folder / "hissing.wav"
    clean = read_wav(speech)
    write_wav(hissing, clean + 0.002 * np.random.default_rng(5).standard_normal(len(clean)), 16_000)
    checked = inspect_sample(hissing, vad, Cleaner())  # type: ignore[arg-type]
    assert SampleLimits().min_snr_db <= checked.snr_db < SampleLimits().clean_snr_db
    assert checked.denoised and Cleaner.calls == 1


def test_denoised_sample_keeps_length_and_rate(encoded: dict[str, Path], vad: SileroVad) -> None:
    from engines.audio.denoise import DeepFilterDenoiser

    denoiser = DeepFilterDenoiser(pool_size=1)
    try:
        checked = inspect_sample(encoded["m4a-aac"], vad, denoiser, SampleLimits(clean_snr_db=200.0))  # always denoise
    finally:
        denoiser.close()
    original = decode(encoded["m4a-aac"])
    assert checked.denoised
    assert checked.clip.sample_rate == original.sample_rate == 44_100
    assert len(checked.clip.samples) == len(original.samples)
    assert checked.snr_db >= 20


def _lag(a: np.ndarray, b: np.ndarray) -> int:
    """Samples by which ``a`` lags ``b`` (peak of the FFT cross-correlation)."""
    n = 1 << (len(a) + len(b)).bit_length()
    corr = np.fft.irfft(np.fft.rfft(a, n) * np.conj(np.fft.rfft(b, n)), n)
    lag = int(np.argmax(corr))
    return lag if lag < n // 2 else lag - n
