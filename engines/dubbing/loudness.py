"""EBU R128 loudness of a track, and normalising it to a target, with ffmpeg's ``loudnorm``.

``measure`` is loudnorm's first pass: it reads the whole track and prints,
as JSON on stderr, the integrated loudness (LUFS, gated per BS.1770), the
true peak (dBTP, 4× oversampled), the loudness range (LU) and the gating
threshold. ``normalise`` is the second pass: given those measurements and
``linear=true``, loudnorm applies one constant gain (target - measured) when
the gained true peak stays under ``true_peak_db`` and the range fits the
target range (set to at least the measured range, so only the peak can
prevent it); otherwise it falls back to its dynamic mode, a 3 s look-ahead
gain control. That mode undershoots on speech (1.4-1.5 LU at -16 LUFS on
7 s and on 28 s), so its result is measured again and corrected by a gain and the
look-ahead peak limiter of ``mixdown`` (ceiling ``SAMPLE_PEAK_MARGIN_DB``
under the true-peak target, since it sees sample peaks only), up to
``CORRECTIONS`` times until within ``CORRECT_ABOVE_LU``. loudnorm works at 192 kHz
internally; the output is resampled back to the input rate and cut or padded
to the input length, so timing is untouched.

Silence (integrated loudness below -70 LUFS, where R128 gating leaves
nothing) and clips shorter than ``MIN_SECONDS`` (one 400 ms gating block and
a margin) have no meaningful loudness and are returned unchanged.
Measured (espeak speech over a chord, 7 s at 24 kHz, true peak 20 dB above
its loudness): -27 and -23 LUFS linear, reached exactly; -20 and -16 LUFS
through the fallback, reached within 0.3 and 0.5 LU, true peak <= -1.0 dBTP.
At -14 LUFS (more than 10 dB of peak reduction) it landed 0.5 LU under with
a true peak of +0.2 dBTP: inter-sample overshoot beats the margin. Speed:
one loudnorm pass runs ~60× real time at 48 kHz on one core (a 3 h track:
~3 min per pass, two to five passes).

``measure_track`` and ``normalise_track`` do the same on tracks in WAV files
(``wav_track``): ffmpeg streams them, and the corrections are applied a block
at a time, so a long track is never held in memory.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
from dataclasses import dataclass

import numpy as np

from engines.dubbing.mixdown import limit, limit_range
from engines.dubbing.pcm import run_filter, run_filter_file
from engines.dubbing.wav_track import WavTrack, write_track
from engines.errors import EngineFailure

log = logging.getLogger(__name__)

MIN_SECONDS = 0.5
#: Below this the R128 gate leaves no block: the track is silence.
SILENCE_LUFS = -70.0
TRUE_PEAK_DB = -1.0
#: loudnorm's target range is at least this (and at least the measured range), so linear gain is possible.
MIN_TARGET_LRA = 11.0
TIMEOUT_S = 600.0
#: After loudnorm's dynamic mode, a miss larger than this is corrected by a gain and the peak limiter.
CORRECT_ABOVE_LU = 0.5
CORRECTIONS = 3
#: The limiter works on sample peaks; true (inter-sample) peaks of speech at 24 kHz measured up to 1.3 dB higher.
SAMPLE_PEAK_MARGIN_DB = 0.5
_JSON = re.compile(rb"\{[^{}]*\}")


@dataclass(frozen=True)
class Loudness:
    """loudnorm's first-pass measurements (``-inf`` loudness and peak for silence)."""

    integrated_lufs: float
    true_peak: float
    lra: float
    threshold: float

    @property
    def silent(self) -> bool:
        return not self.integrated_lufs > SILENCE_LUFS


_MEASURE = f"loudnorm=I=-23.00:TP={TRUE_PEAK_DB:.2f}:LRA={MIN_TARGET_LRA:.2f}:print_format=json"


def measure(samples: np.ndarray, rate: int, *, timeout_s: float = TIMEOUT_S) -> Loudness:
    """The R128 loudness of mono ``samples`` at ``rate`` Hz (loudnorm's first pass).

    Raises:
        EngineFailure: ffmpeg failed or printed no measurement.
    """
    _, stderr = run_filter(samples, rate, _MEASURE, timeout_s=timeout_s, what="measure loudness", out_rate=0, keep_log=True)
    return _measured(stderr)


def measure_track(track: WavTrack, *, timeout_s: float = TIMEOUT_S) -> Loudness:
    """``measure`` of a track (its range of its file), streamed by ffmpeg.

    Raises:
        EngineFailure: ffmpeg failed or printed no measurement.
    """
    graph = f"atrim=start_sample={track.offset}:end_sample={track.offset + len(track)},{_MEASURE}"
    what = "measure loudness"
    return _measured(run_filter_file(track.path, graph, None, rate=track.rate, timeout_s=timeout_s, what=what, keep_log=True))


def _measured(stderr: bytes) -> Loudness:
    data = _last_json(stderr)
    return Loudness(
        integrated_lufs=_number(data, "input_i"),
        true_peak=_number(data, "input_tp"),
        lra=_number(data, "input_lra"),
        threshold=_number(data, "input_thresh"),
    )


def normalise(
    samples: np.ndarray,
    rate: int,
    target_lufs: float,
    *,
    measured: Loudness | None = None,
    true_peak_db: float = TRUE_PEAK_DB,
    timeout_s: float = TIMEOUT_S,
) -> np.ndarray:
    """``samples`` brought to ``target_lufs`` integrated loudness; same rate and length.

    ``measured`` is ``measure``'s result when the caller has it (else it is
    measured here). Silence and clips under ``MIN_SECONDS`` come back unchanged.

    Raises:
        ValueError: ``target_lufs`` is not finite (it is clamped to loudnorm's -70..-5 LUFS).
        EngineFailure: ffmpeg failed.
    """
    if not math.isfinite(target_lufs):
        raise ValueError(f"target_lufs must be finite, got {target_lufs}")
    target_lufs = _clamp(target_lufs, -70.0, -5.0)
    if len(samples) < MIN_SECONDS * rate:
        return samples
    m = measured or measure(samples, rate, timeout_s=timeout_s)
    if m.silent:
        return samples
    graph = _second_pass(target_lufs, m, true_peak_db)
    out, stderr = run_filter(samples, rate, graph, timeout_s=timeout_s, what="normalise loudness", keep_log=True)
    out = _fit(out, len(samples))
    if _mode(stderr) == "linear":
        return out
    # Dynamic mode: loudnorm's 3 s gain control undershoots on speech (measured 1.4-1.5 LU at -16 LUFS).
    for _ in range(CORRECTIONS):
        reached = measure(out, rate, timeout_s=timeout_s)
        if reached.silent or abs(target_lufs - reached.integrated_lufs) <= CORRECT_ABOVE_LU:
            break
        gain = np.float32(10 ** ((target_lufs - reached.integrated_lufs) / 20))
        out = limit(out * gain, rate, true_peak_db - SAMPLE_PEAK_MARGIN_DB)
    return out


def normalise_track(
    track: WavTrack,
    dst: str | os.PathLike[str],
    target_lufs: float,
    *,
    measured: Loudness | None = None,
    true_peak_db: float = TRUE_PEAK_DB,
    timeout_s: float = TIMEOUT_S,
) -> WavTrack:
    """``normalise`` of a whole-file track into the float WAV ``dst``, streamed: the same passes and corrections,
    the corrections a block at a time. Silence and clips under ``MIN_SECONDS`` come back as ``track`` itself.

    Raises:
        ValueError: ``target_lufs`` is not finite, or ``track`` is part of its file.
        EngineFailure: ffmpeg failed.
    """
    if not math.isfinite(target_lufs):
        raise ValueError(f"target_lufs must be finite, got {target_lufs}")
    if track.offset or len(track) != track.frames:
        raise ValueError("normalise_track takes a whole file")
    target_lufs = _clamp(target_lufs, -70.0, -5.0)
    rate, length = track.rate, len(track)
    if length < MIN_SECONDS * rate:
        return track
    m = measured or measure_track(track, timeout_s=timeout_s)
    if m.silent:
        return track
    graph = _second_pass(target_lufs, m, true_peak_db)
    stderr = run_filter_file(track.path, graph, dst, rate=rate, timeout_s=timeout_s, what="normalise loudness", keep_log=True)
    out = WavTrack(dst, length=length)
    if _mode(stderr) == "linear":
        return out
    for _ in range(CORRECTIONS):  # as in ``normalise``
        reached = measure_track(out, timeout_s=timeout_s)
        if reached.silent or abs(target_lufs - reached.integrated_lufs) <= CORRECT_ABOVE_LU:
            break
        out = _gained_and_limited(out, dst, np.float32(10 ** ((target_lufs - reached.integrated_lufs) / 20)), true_peak_db)
    return out


def _gained_and_limited(track: WavTrack, dst: str | os.PathLike[str], gain: np.float32, true_peak_db: float) -> WavTrack:
    """``limit(track × gain)`` (the correction of ``normalise``) written to ``dst`` a block at a time."""
    rate, length, ceiling = track.rate, len(track), true_peak_db - SAMPLE_PEAK_MARGIN_DB

    def gained(lo: int, hi: int) -> np.ndarray:
        return track.read(lo, hi) * gain

    return write_track(dst, rate, length, lambda lo, hi: limit_range(gained, lo, hi, length, rate, ceiling))


def _second_pass(target_lufs: float, m: Loudness, true_peak_db: float) -> str:
    """loudnorm's second pass to ``target_lufs`` with the first pass's measurements, linear when it can be."""
    lra = min(50.0, max(MIN_TARGET_LRA, m.lra))
    return (
        f"loudnorm=I={target_lufs:.2f}:TP={true_peak_db:.2f}:LRA={lra:.2f}"
        f":measured_I={_clamp(m.integrated_lufs, -99.0, 0.0):.2f}:measured_TP={_clamp(m.true_peak, -99.0, 99.0):.2f}"
        f":measured_LRA={_clamp(m.lra, 0.0, 99.0):.2f}:measured_thresh={_clamp(m.threshold, -99.0, 0.0):.2f}"
        ":linear=true:print_format=json"
    )


def _mode(stderr: bytes) -> str:
    """loudnorm's ``normalization_type`` (``linear`` or ``dynamic``); ``dynamic`` when it printed none."""
    try:
        mode = str(_last_json(stderr).get("normalization_type", "dynamic"))
    except EngineFailure:
        mode = "dynamic"
    log.debug("loudnorm: %s normalisation", mode)
    return mode


def _fit(out: np.ndarray, length: int) -> np.ndarray:
    """``out`` cut or zero-padded to ``length`` (resampling from 192 kHz may gain or lose a sample)."""
    if len(out) >= length:
        return out[:length]
    return np.concatenate([out, np.zeros(length - len(out), dtype=np.float32)])


def _last_json(stderr: bytes) -> dict[str, object]:
    """The last flat JSON object in loudnorm's log."""
    blocks = _JSON.findall(stderr)
    try:
        data = json.loads(blocks[-1]) if blocks else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise EngineFailure("ffmpeg's loudnorm printed no measurement")
    return data


def _number(data: dict[str, object], key: str) -> float:
    """loudnorm prints numbers as strings, ``-inf`` for silence."""
    try:
        value = float(str(data[key]))
    except (KeyError, ValueError) as exc:
        raise EngineFailure(f"ffmpeg's loudnorm printed no {key}") from exc
    if math.isnan(value):
        raise EngineFailure(f"ffmpeg's loudnorm printed {key} = nan")
    return value


def _clamp(x: float, low: float, high: float) -> float:
    return min(high, max(low, x))
