"""The voice-sample check: is an upload usable for voice cloning, and its clean audio.

``inspect_sample`` runs the checks in the order a user fixes them, cheapest
first, each raising its own error class (HTTP status / contract code in
``core.errors``):

1. format, by content, with a rate the decoder accepts (``UnsupportedAudioFormat``, 415/3002);
2. sample rate at least ``min_rate`` (``BadVoiceSample``, 400/1001);
3. duration within [``min_s``, ``max_s``] (``SampleDuration``, 400/1007);
4. speech: the VAD finds at least ``MIN_SPEECH_S`` of it (``NoSpeechFound``, 400/1009);
5. SNR of the sample as sent, before any denoising, at least ``min_snr_db``
   (``SampleTooNoisy``, 400/1008);
6. denoising, when a denoiser is given and the SNR is under ``clean_snr_db`` (a clean sample has nothing
   to take out).

Steps 1-3 only probe the file. The decoded length is checked again against
the range (with ``DECODED_SLACK_S`` of slack), so a header claiming 30 s over
5 s of audio is refused as well; the decode itself is capped in rate and
length (``decode``), so a header claiming more cannot make it allocate more.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from engines.audio.decode import MAX_DECODE_RATE, MAX_DECODE_S, AudioClip, SampleInfo, decode, probe_audio
from engines.audio.denoise import DeepFilterDenoiser
from engines.audio.snr import estimate_snr_db
from engines.audio.vad import SileroVad, speech_seconds
from engines.errors import BadVoiceSample, NoSpeechFound, SampleDuration, SampleTooNoisy

#: Highest rate a checked clip keeps; higher-rate samples are resampled to it while decoding (DeepFilterNet's rate).
MAX_CLIP_RATE = MAX_DECODE_RATE
#: How far the decoded length may differ from the stated one (codec priming, padding) before it is judged.
DECODED_SLACK_S = 0.5
#: Less speech than this, in total, is no speech for cloning purposes.
MIN_SPEECH_S = 1.0


@dataclass(frozen=True)
class SampleLimits:
    """What the cloner accepts; the defaults are the contract's."""

    #: Shortest and longest sample, in seconds of audio.
    min_s: float = 10.0
    max_s: float = 60.0
    #: Lowest sample rate, in Hz.
    min_rate: int = 16_000
    #: Lowest estimated SNR of the sample as sent, in dB.
    min_snr_db: float = 20.0
    #: A sample at or above this SNR is not denoised even when asked: there is no noise to take out, and
    #: DeepFilterNet costs about a tenth of a second per second of sample.
    clean_snr_db: float = 40.0

    def __post_init__(self) -> None:
        if not 0 < self.min_s < self.max_s <= MAX_DECODE_S:
            raise ValueError(f"need 0 < min_s < max_s <= {MAX_DECODE_S:g} (what decode reads), got {self.min_s}, {self.max_s}")


@dataclass(frozen=True)
class CheckedSample:
    """A sample that passed every check, with what the checks measured."""

    #: Mono float32 at the sample's rate (at most ``MAX_CLIP_RATE``); denoised when ``denoised``.
    clip: AudioClip
    info: SampleInfo
    #: Speech segments ``(start_s, end_s)`` found in the sample as sent.
    speech: list[tuple[float, float]]
    speech_s: float
    #: Estimated SNR of the sample as sent (before denoising), in dB.
    snr_db: float
    denoised: bool


def inspect_sample(
    path: str | os.PathLike[str],
    vad: SileroVad,
    denoiser: DeepFilterDenoiser | None,
    limits: SampleLimits = SampleLimits(),
) -> CheckedSample:
    """Check a voice sample and return its audio, denoised when ``denoiser`` is given.

    Raises:
        UnsupportedAudioFormat: not WAV, MP3, FLAC, M4A or OGG audio by content, or undecodable.
        BadVoiceSample: sample rate under ``limits.min_rate``.
        SampleDuration: duration outside ``[limits.min_s, limits.max_s]``.
        NoSpeechFound: less than ``MIN_SPEECH_S`` of speech.
        SampleTooNoisy: estimated SNR under ``limits.min_snr_db``.
        EngineUnavailable / EngineTimeout / EngineFailure: a tool or model failed, not the sample.
    """
    info = probe_audio(path)
    _check_rate(info, limits)
    _check_duration(info.duration_s, limits)
    clip = decode(path, min(info.sample_rate, MAX_CLIP_RATE), info=info)
    _check_duration(clip.duration_s, limits, DECODED_SLACK_S)  # a header may lie about the length
    speech = vad.speech_segments(clip)
    speech_s = speech_seconds(speech)
    if speech_s < MIN_SPEECH_S:
        raise NoSpeechFound(f"No speech was found in the sample ({speech_s:.1f} s; at least {MIN_SPEECH_S:g} s needed).")
    snr_db = estimate_snr_db(clip, speech)
    if snr_db < limits.min_snr_db:
        raise SampleTooNoisy(
            f"The sample is too noisy: estimated SNR {snr_db:.1f} dB, at least {limits.min_snr_db:g} dB needed. "
            "Record in a quieter place."
        )
    denoise = denoiser is not None and snr_db < limits.clean_snr_db
    cleaned = denoiser.denoise(clip) if denoise and denoiser is not None else clip
    return CheckedSample(clip=cleaned, info=info, speech=speech, speech_s=speech_s, snr_db=snr_db, denoised=denoise)


def _check_rate(info: SampleInfo, limits: SampleLimits) -> None:
    if info.sample_rate < limits.min_rate:
        raise BadVoiceSample(f"The sample rate {info.sample_rate} Hz is under the {limits.min_rate} Hz minimum.")


def _check_duration(seconds: float, limits: SampleLimits, slack_s: float = 0.0) -> None:
    if not limits.min_s - slack_s <= seconds <= limits.max_s + slack_s:
        raise SampleDuration(f"The sample lasts {seconds:.1f} s; it must last between {limits.min_s:g} and {limits.max_s:g} s.")
