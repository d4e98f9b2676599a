"""Voices fitted from each speaker's own speech, for ``dubbing_voice=original``.

Each speaker's lines are cut from the original speech (the separated speech track when the background is
kept, else the original audio), joined, and given to the voice cloner as a sample: the same checks as an
uploaded sample (at least 10 s of speech, SNR), then a voice fitted in the target language. A speaker
without enough clean speech, or a target language the cloned voices cannot speak, keeps the stock voice
that ``default-*`` would give (``choose_voices``); the report says which and why. Without diarization the
whole recording is one speaker.
"""

from __future__ import annotations

import dataclasses
import io
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import numpy as np
import soundfile as sf
import soxr

from engines.dubbing.wav_track import WavTrack
from engines.errors import EngineError
from engines.voice.cloner import PREPARED_RATE
from engines.voice.sample import SampleLimits
from pipelines.dubbing.lines import DubLine
from pipelines.dubbing.voices import Speaker, VoiceChoice

log = logging.getLogger(__name__)

#: The cloner's sample limits (docs/voice-samples.md): at least 10 s of speech, at most 60 s of audio in all,
#: of which 5 s are left for the gaps between lines.
MIN_SPEECH_S = SampleLimits().min_s
MAX_SPEECH_S = SampleLimits().max_s - 5.0
SAMPLE_RATE = PREPARED_RATE
#: Silence put between two lines of a sample.
GAP_S = 0.25

#: (sample WAV bytes, target language, gender) → the fitted voice: ``engine``, ``style``, ``quality_score``.
FitVoice = Callable[[bytes, str, str], Awaitable[Mapping[str, Any]]]


@dataclasses.dataclass(frozen=True)
class OwnVoice:
    """What fitting a speaker's voice gave: the choice (None: the stock voice stays) and how."""

    choice: VoiceChoice | None
    speech_s: float
    seconds: float
    quality_score: float | None = None
    reason: str | None = None

    def public(self) -> dict[str, Any]:
        out: dict[str, Any] = {"speech_s": round(self.speech_s, 2), "seconds": round(self.seconds, 2)}
        if self.quality_score is not None:
            out["quality_score"] = round(self.quality_score, 3)
        if self.reason:
            out["kept_stock_voice"] = self.reason
        return out


def speaker_speech(
    lines: Sequence[DubLine], speaker: str | None, track: np.ndarray | WavTrack, rate: int, start: float
) -> tuple[np.ndarray, float]:
    """The speaker's lines cut from ``track`` (which starts at media time ``start``), joined with short gaps and
    resampled to 16 kHz, the longest lines first, at most :data:`MAX_SPEECH_S` in all; and the seconds of speech."""
    spans = [(line.start, line.end) for line in lines if line.speaker == speaker and line.end > line.start]
    spans.sort(key=lambda span: span[0] - span[1])  # longest first
    pieces, total, speech = [], 0.0, 0.0
    gap = np.zeros(int(GAP_S * rate), np.float32)
    for begin, end in spans:
        room = MAX_SPEECH_S - total
        if room <= 0:
            break
        piece = track[max(0, int((begin - start) * rate)) : max(0, int((min(end, begin + room) - start) * rate))]
        if len(piece):
            pieces += [piece, gap]
            total += len(piece) / rate + GAP_S
            speech += len(piece) / rate
    if not pieces:
        return np.zeros(0, np.float32), 0.0
    joined = np.concatenate(pieces[:-1]).astype(np.float32)  # no gap after the last line
    return (joined if rate == SAMPLE_RATE else soxr.resample(joined, rate, SAMPLE_RATE).astype(np.float32)), speech


def wav_bytes(samples: np.ndarray) -> bytes:
    out = io.BytesIO()
    sf.write(out, samples, SAMPLE_RATE, format="WAV", subtype="PCM_16")
    return out.getvalue()


async def fit_own_voices(
    lines: Sequence[DubLine],
    speakers: Sequence[Speaker],
    track: np.ndarray | WavTrack,
    rate: int,
    start: float,
    lang: str,
    fit: FitVoice | None,
    report: Callable[[float], None],
) -> dict[str | None, OwnVoice]:
    """A fitted voice per speaker (key None without diarization), or the reason the stock voice stays."""
    who: list[tuple[str | None, str]] = [(s.name, s.gender) for s in sorted(speakers, key=lambda s: -s.seconds)]
    if not who:
        who = [(None, "female")]
    out: dict[str | None, OwnVoice] = {}
    for i, (name, gender) in enumerate(who):
        started = time.monotonic()
        speech, seconds = speaker_speech(lines, name, track, rate, start)
        if fit is None:
            out[name] = OwnVoice(None, seconds, 0.0, reason="voice cloning is not deployed on this service")
        elif seconds < MIN_SPEECH_S:
            out[name] = OwnVoice(None, seconds, 0.0, reason=f"{seconds:.1f} s of speech; a voice needs {MIN_SPEECH_S:g} s")
        else:
            try:
                fitted = await fit(wav_bytes(speech), lang, gender)
            except EngineError as exc:  # a sample the cloner refuses (too noisy, no speech) keeps the stock voice
                log.info("no voice fitted for %s: %s", name or "the speaker", exc)
                out[name] = OwnVoice(None, seconds, time.monotonic() - started, reason=str(exc))
            except Exception:  # the dub goes on with the stock voice; the cause is for the operator's log
                log.warning("fitting a voice for %s failed", name or "the speaker", exc_info=True)
                out[name] = OwnVoice(None, seconds, time.monotonic() - started, reason="the voice cloner failed")
            else:
                style = {"engine": fitted["engine"], "style": fitted["style"]}
                choice = VoiceChoice(None, style, gender=gender, origin="original")
                score = float(fitted["quality_score"])
                out[name] = OwnVoice(choice, seconds, time.monotonic() - started, quality_score=score)
        report((i + 1) / len(who))
    return out
