"""The dubbing audio operations on real audio: tempo, separation, loudness, mixdown, mux."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from engines.dubbing.loudness import measure, measure_track, normalise, normalise_track
from engines.dubbing.mixdown import CEILING_DB, SPLICE_FADE_S, PlacedLine, assemble, mix, splice, write_wav
from engines.dubbing.mux import extract_full_audio, replace_audio
from engines.dubbing.separation import separate
from engines.dubbing.tempo import change_tempo
from engines.dubbing.wav_track import WavTrack
from tests.support.media import make_video
from tests.support.speech import espeak

pytestmark = pytest.mark.skipif(
    shutil.which("ffmpeg") is None or shutil.which("espeak-ng") is None, reason="needs ffmpeg and espeak-ng"
)

RATE = 24_000
SENTENCE = "The quick brown fox jumps over the lazy dog. Dubbing needs the background without the voice."


def rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x, dtype=np.float64))))


def db(x: float) -> float:
    return 10 * float(np.log10(x))


def si_sdr(estimate: np.ndarray, reference: np.ndarray) -> float:
    est, ref = estimate.astype(np.float64), reference.astype(np.float64)
    target = np.dot(est, ref) / np.dot(ref, ref) * ref
    return db(np.sum(target**2) / np.sum((est - target) ** 2))


def dominant_hz(samples: np.ndarray, rate: int = RATE) -> float:
    spectrum = np.abs(np.fft.rfft(samples * np.hanning(samples.size)))
    return float(np.fft.rfftfreq(samples.size, 1 / rate)[spectrum.argmax()])


def chord(seconds: float, rate: int = RATE) -> np.ndarray:
    """Music-like: a G major triad of harmonic tones, each with a slow amplitude envelope."""
    t = np.arange(round(seconds * rate)) / rate
    out = np.zeros_like(t)
    for k, f0 in enumerate((196.0, 246.9, 293.7)):
        envelope = 0.6 + 0.4 * np.sin(2 * np.pi * (0.25 + 0.1 * k) * t)
        for h in range(1, 6):
            out += envelope * np.sin(2 * np.pi * f0 * h * t + k) / h**1.5
    return out.astype(np.float32)


@pytest.fixture(scope="module")
def speech() -> np.ndarray:
    pause = np.zeros(RATE // 2, dtype=np.float32)
    return np.concatenate([pause, espeak(SENTENCE, sample_rate=RATE), pause])


# --------------------------------------------------------------------- tempo


@pytest.mark.parametrize("tempo", [1.1, 1.25, 1.35])
def test_tempo_keeps_pitch_and_shortens_by_the_tempo(tempo: float) -> None:
    tone = (0.5 * np.sin(2 * np.pi * 220.0 * np.arange(4 * RATE) / RATE)).astype(np.float32)
    out = change_tempo(tone, RATE, tempo)
    assert abs(len(out) - len(tone) / tempo) <= 0.01 * len(tone) / tempo
    assert dominant_hz(out) == pytest.approx(220.0, abs=2.0)  # one FFT bin is 0.3 Hz; a resampled tone would be 275-297 Hz
    assert out.dtype == np.float32


def test_tempo_on_speech_and_identity(speech: np.ndarray) -> None:
    assert change_tempo(speech, RATE, 1.0) is speech
    out = change_tempo(speech, RATE, 1.3)
    assert abs(len(out) - len(speech) / 1.3) <= 0.01 * len(speech) / 1.3
    assert rms(out) == pytest.approx(rms(speech) * np.sqrt(1.0), rel=0.15)  # level kept
    with pytest.raises(ValueError):
        change_tempo(speech, RATE, 3.0)


# --------------------------------------------------------------------- separation


@pytest.fixture(scope="module")
def denoiser():  # type: ignore[no-untyped-def]
    from engines.audio.denoise import DeepFilterDenoiser

    d = DeepFilterDenoiser(pool_size=1)
    yield d
    d.close()


def test_separation_of_speech_over_music(speech: np.ndarray, denoiser) -> None:  # type: ignore[no-untyped-def]
    music = chord(len(speech) / RATE)
    music *= rms(speech) / rms(music) * 10 ** (-3 / 20)  # music 3 dB under the speech
    scale = 0.9 / np.abs(speech + music).max()
    voice, music = speech * scale, music * scale
    mixture = voice + music
    progress: list[float] = []
    est_speech, est_background = separate(mixture, RATE, denoiser, on_progress=progress.append)
    assert len(est_speech) == len(est_background) == len(mixture)
    np.testing.assert_allclose(est_speech + est_background, mixture, atol=1e-6)
    assert progress and progress[-1] == 1.0 and progress == sorted(progress)
    # measured: speech 2.9 -> 10.7 dB, background -3.2 -> 6.8 dB
    assert si_sdr(est_speech, voice) >= si_sdr(mixture, voice) + 6.0
    assert si_sdr(est_background, music) >= si_sdr(mixture, music) + 7.0


def test_separation_leaves_music_and_noise_in_the_background(denoiser) -> None:  # type: ignore[no-untyped-def]
    music = 0.3 * chord(6.0) / np.abs(chord(6.0)).max()
    noise = (0.05 * np.random.default_rng(0).standard_normal(6 * RATE)).astype(np.float32)
    for signal in (music, noise):
        _, background = separate(signal, RATE, denoiser)
        # measured: the background is the mix within -28 dB (music) and -25 dB (white noise)
        assert db(np.sum((background - signal) ** 2) / np.sum(signal**2)) <= -15.0


def test_separation_of_clean_speech_leaves_little_background(speech: np.ndarray, denoiser) -> None:  # type: ignore[no-untyped-def]
    _, background = separate(speech, RATE, denoiser)
    assert db(np.sum(background**2) / np.sum(speech**2)) <= -10.0  # measured: -27 dB


def test_separation_in_pieces_matches_one_pass(speech: np.ndarray, denoiser) -> None:  # type: ignore[no-untyped-def]
    mixture = 0.7 * speech + 0.2 * chord(len(speech) / RATE) / 3
    whole, _ = separate(mixture, RATE, denoiser)
    progress: list[float] = []
    pieces, _ = separate(mixture, RATE, denoiser, chunk_s=2.5, on_progress=progress.append)
    assert len(progress) >= 3
    # measured: -22 dB; a boundary without context or cross-fade gives a click and a few dB more
    assert db(np.sum((pieces - whole) ** 2) / np.sum(whole**2)) <= -15.0


# --------------------------------------------------------------------- loudness


@pytest.mark.parametrize("target", [-27.0, -23.0, -16.0])
def test_normalise_reaches_the_target(speech: np.ndarray, target: float) -> None:
    music = chord(len(speech) / RATE)
    signal = 0.3 * speech + 0.05 * music / np.abs(music).max()
    before = measure(signal, RATE)
    out = normalise(signal, RATE, target, measured=before)
    assert len(out) == len(signal) and out.dtype == np.float32
    after = measure(out, RATE)
    assert after.integrated_lufs == pytest.approx(target, abs=1.0)
    assert after.true_peak <= -0.5


@pytest.mark.parametrize("target", [-27.0, -16.0])  # linear gain, and loudnorm's dynamic mode with corrections
def test_normalise_track_streams_to_the_target_as_normalise_does(speech: np.ndarray, target: float, tmp_path: Path) -> None:
    music = chord(len(speech) / RATE)
    signal = 0.3 * speech + 0.05 * music / np.abs(music).max()
    sf.write(tmp_path / "in.wav", signal, RATE, subtype="FLOAT")
    track = WavTrack(tmp_path / "in.wav")
    before = measure_track(track)
    assert before.integrated_lufs == pytest.approx(measure(signal, RATE).integrated_lufs, abs=0.05)
    third = len(signal) // 3
    part = measure_track(track.view(third, 2 * third))  # a range of the file, as the dub's reference is
    assert part.integrated_lufs == pytest.approx(measure(signal[third : 2 * third], RATE).integrated_lufs, abs=0.05)
    out = normalise_track(track, tmp_path / "out.wav", target, measured=before)
    assert len(out) == len(signal) and out.path == tmp_path / "out.wav"
    after = measure_track(out)
    reference = measure(normalise(signal, RATE, target, measured=before), RATE)
    assert after.integrated_lufs == pytest.approx(target, abs=1.0)
    assert after.integrated_lufs == pytest.approx(reference.integrated_lufs, abs=0.3)
    assert after.true_peak <= -0.5


def test_silence_and_short_clips_are_left_alone() -> None:
    silence = np.zeros(3 * RATE, dtype=np.float32)
    assert measure(silence, RATE).silent
    assert normalise(silence, RATE, -16.0) is silence
    short = (0.1 * np.sin(np.arange(RATE // 4) / 5)).astype(np.float32)
    assert normalise(short, RATE, -16.0) is short


# --------------------------------------------------------------------- mixdown


def test_assemble_places_lines_at_their_start_sample() -> None:
    line = np.full(RATE // 2, 0.5, dtype=np.float32)
    track = assemble([PlacedLine(1.0, line), PlacedLine(2.25, line, fade_out_s=0.2), PlacedLine(9.8, line)], RATE, 10.0)
    assert len(track) == 10 * RATE and track.dtype == np.float32
    assert np.all(track[: RATE - 1] == 0) and track[RATE + RATE // 4] == 0.5
    assert track[RATE] > 0  # first sample of the ramp
    start = round(2.25 * RATE)
    assert np.all(np.diff(track[start + RATE // 2 - round(0.2 * RATE) : start + RATE // 2]) <= 0)  # fading out
    assert track[-1] > 0 and np.count_nonzero(track[round(9.8 * RATE) :]) == len(track) - round(9.8 * RATE)
    assert len(assemble([], RATE, 1.2345)) == round(1.2345 * RATE)


def test_mix_limits_peaks_and_keeps_quiet_levels(speech: np.ndarray) -> None:
    ceiling = 10 ** (CEILING_DB / 20)
    dub = 0.5 * speech / np.abs(speech).max()
    background = chord(len(speech) / RATE)
    background *= 0.3 / np.abs(background).max()
    quiet = mix(dub, background, 0.5, rate=RATE)
    np.testing.assert_array_equal(quiet, dub + np.float32(0.5) * background)  # under the ceiling: untouched
    np.testing.assert_array_equal(mix(dub, background, 0.0, rate=RATE), dub)
    np.testing.assert_array_equal(mix(dub, None, 0.7, rate=RATE), dub)
    loud = mix(2 * dub, background, 1.0, rate=RATE)
    assert np.abs(loud).max() <= ceiling + 1e-6
    raw = 2 * dub + background
    far = np.abs(raw) < ceiling
    assert np.mean(loud[far] == raw[far]) >= 0.2  # away from peaks the samples are left as they were
    assert len(mix(dub, background[:100], 1.0, rate=RATE)) == len(dub)


def test_splice_takes_the_mix_inside_the_range_only() -> None:
    rng = np.random.default_rng(1)
    original = rng.uniform(-0.5, 0.5, 10 * RATE).astype(np.float32)
    mixed = rng.uniform(-0.5, 0.5, 3 * RATE).astype(np.float32)  # the audio of 2-5 s
    fade = round(SPLICE_FADE_S * RATE)
    out = splice(original, mixed, RATE, 2.0, 5.0)
    assert len(out) == len(original)
    np.testing.assert_array_equal(out[: 2 * RATE], original[: 2 * RATE])
    np.testing.assert_array_equal(out[5 * RATE :], original[5 * RATE :])
    np.testing.assert_array_equal(out[2 * RATE + fade : 5 * RATE - fade], mixed[fade:-fade])
    edge, a, b = out[2 * RATE : 2 * RATE + fade], original[2 * RATE : 2 * RATE + fade], mixed[:fade]
    assert np.all(edge >= np.minimum(a, b) - 1e-6) and np.all(edge <= np.maximum(a, b) + 1e-6)  # a cross-fade
    assert abs(edge[0] - a[0]) < abs(edge[0] - b[0]) + 1e-6 and abs(edge[-1] - b[-1]) < abs(edge[-1] - a[-1]) + 1e-6
    tail = splice(original, mixed, RATE, 8.0, None)  # to the end: 2 s of the mix, no fade at the track's end
    np.testing.assert_array_equal(tail[-fade:], mixed[2 * RATE - fade : 2 * RATE])
    whole = splice(original, original[::-1], RATE, 0.0, None)
    np.testing.assert_array_equal(whole, original[::-1])
    short = splice(original, mixed[:RATE], RATE, 2.0, 5.0)  # a short mix is padded with silence
    assert np.all(short[3 * RATE + fade : 5 * RATE - fade] == 0)


def test_write_wav_is_16_bit_pcm(tmp_path: Path) -> None:
    samples = np.linspace(-1.5, 1.5, RATE, dtype=np.float32)
    path = write_wav(samples, RATE, tmp_path / "out.wav")
    info = sf.info(path)
    assert (info.samplerate, info.channels, info.subtype, info.frames) == (RATE, 1, "PCM_16", RATE)
    assert not list(tmp_path.glob(".*.part"))


# --------------------------------------------------------------------- mux


def ffprobe(path: Path) -> dict:
    cmd = ["ffprobe", "-v", "error", "-print_format", "json", "-show_format", "-show_streams", str(path)]
    return json.loads(subprocess.run(cmd, capture_output=True, check=True, timeout=60).stdout)


def packet_md5s(path: Path) -> list[str]:
    """The md5 of every packet of the first video stream, as stream-copied."""
    cmd = ["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:v:0", "-c", "copy", "-f", "framemd5", "-"]
    out = subprocess.run(cmd, capture_output=True, check=True, timeout=60).stdout.decode()
    return [line.rsplit(",", 1)[1].strip() for line in out.splitlines() if line and not line.startswith("#")]


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_video(tmp_path_factory.mktemp("src") / "source.mp4", container="mp4", duration=3.0)


@pytest.mark.parametrize("audio_s", [1.0, 3.0, 5.5])
def test_replace_audio_copies_the_picture_and_keeps_the_duration(source: Path, tmp_path: Path, audio_s: float) -> None:
    wav = write_wav(0.3 * chord(audio_s, 48_000), 48_000, tmp_path / "dub.wav")
    out = replace_audio(source, wav, tmp_path / "dubbed.mp4", timeout_s=60)
    data = ffprobe(out)
    audio = [s for s in data["streams"] if s["codec_type"] == "audio"]
    video = [s for s in data["streams"] if s["codec_type"] == "video"]
    assert len(audio) == 1 and audio[0]["codec_name"] == "aac" and len(video) == 1
    assert packet_md5s(out) == packet_md5s(source)
    assert float(data["format"]["duration"]) == pytest.approx(float(ffprobe(source)["format"]["duration"]), abs=0.1)
    assert float(audio[0]["duration"]) == pytest.approx(3.0, abs=0.1)


def test_replace_audio_reencodes_what_mp4_cannot_carry(tmp_path: Path) -> None:
    src = make_video(tmp_path / "source.webm", container="webm", codec="vp8", duration=2.0)
    wav = write_wav(0.3 * chord(1.0, 48_000), 48_000, tmp_path / "dub.wav")
    data = ffprobe(replace_audio(src, wav, tmp_path / "dubbed.mp4", timeout_s=120))
    assert [s["codec_name"] for s in data["streams"]] == ["h264", "aac"]
    assert float(data["format"]["duration"]) == pytest.approx(2.0, abs=0.1)


def test_extract_full_audio_is_mono_at_the_rate_and_full_length(tmp_path: Path) -> None:
    src = make_video(tmp_path / "source.mkv", container="mkv", duration=2.5)
    wav = extract_full_audio(src, tmp_path / "full.wav", 48_000, timeout_s=60)
    samples, rate = sf.read(wav, dtype="float32")
    assert rate == 48_000 and samples.ndim == 1
    assert len(samples) / rate == pytest.approx(2.5, abs=0.05)
    assert dominant_hz(samples[: 2 * rate], rate) == pytest.approx(440.0, abs=2.0)
