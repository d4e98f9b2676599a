"""Benchmark: the CPU diarizer (``embedded-diarizer``) — speed on long audio and quality on the test dialogues.

Speed: a long recording (``--minutes``, default 5) made of the two test
dialogues repeated back to back (the real *Endgame* scene of moonshine-voice
and the synthetic espeak-ng dialogue of ``tests/support/dialogue.py``) is
diarized ``--repeat`` times with the speaker count estimated; printed are the
median seconds per minute of audio, the real-time factor, and, as a baseline
measured in the same run on the same audio, the Silero VAD pass alone (the
first stage of the diarizer): the ratio says what speaker embedding and
clustering add on top of voice activity detection.

Quality, on each dialogue, with the count estimated and given: speakers
found, speech-time accuracy under the best speaker mapping, and DER (missed +
false alarm + confusion over reference speech, no collar; the real scene is
scored on its known turns only, so its false alarms are not counted).

    PYTHONPATH=. .venv/bin/python loadtests/bench_diarization.py [--minutes 5] [--repeat 3] [--threads 2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import soundfile as sf

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engines.audio.decode import AudioClip  # noqa: E402
from engines.audio.vad import SileroVad  # noqa: E402
from engines.diarization.embedded import EmbeddedDiarizer  # noqa: E402
from engines.diarization.scoring import score  # noqa: E402
from tests.support import speech  # noqa: E402
from tests.support.dialogue import SPEAKERS, build_dialogue  # noqa: E402

RATE = speech.RATE


def dialogues() -> dict[str, tuple[np.ndarray, list[tuple[float, float, str]], bool]]:
    """name → (audio, reference turns, scored on known turns only)."""
    out = {}
    assets = speech._moonshine_assets()
    if assets is not None and (assets / "endgame_nagg_nell.wav").is_file():
        audio, rate = sf.read(assets / "endgame_nagg_nell.wav", dtype="float32", always_2d=True)
        reference = [(s, e, "nagg") for s, e in speech._NAGG] + [(s, e, "nell") for s, e in speech._NELL]
        out["endgame (real)"] = (speech.resample(audio.mean(axis=1), rate, RATE), reference, True)
    built = build_dialogue()
    out["espeak (synthetic)"] = (built.audio, [(s, e, SPEAKERS[v]) for s, e, v in built.turns], False)
    return out


def quality(engine: EmbeddedDiarizer, data: dict) -> None:
    header = f"{'dialogue':<20} {'seconds':>7} {'given':>5} {'found':>5} {'accuracy':>8} {'DER':>6}"
    print(header, " (missed / false alarm / confusion, s)")
    for name, (audio, reference, known_only) in data.items():
        truth = len({speaker for _, _, speaker in reference})
        for given in (None, truth):
            result = engine.diarize(audio, num_speakers=given)
            s = score(reference, [(t.start, t.end, t.speaker) for t in result.turns], scored_only=known_only)
            seconds = len(audio) / RATE
            row = f"{name:<20} {seconds:7.1f} {given or '-':>5} {result.speaker_count:>5} {s.accuracy:8.3f} {s.der:6.3f}"
            print(row, f" ({s.missed:.2f} / {s.false_alarm:.2f} / {s.confusion:.2f})")


def speed(engine: EmbeddedDiarizer, data: dict, minutes: float, repeat: int) -> None:
    pieces = [audio for audio, _, _ in data.values()]
    long = np.concatenate([pieces[i % len(pieces)] for i in range(int(minutes * 60 * RATE / min(map(len, pieces))) + 1)])
    long = long[: round(minutes * 60 * RATE)]
    audio_min = len(long) / RATE / 60
    vad = SileroVad()
    times, vad_times, found = [], [], 0
    for _ in range(repeat):
        start = time.perf_counter()
        vad.speech_segments(AudioClip(long, RATE))
        vad_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        found = engine.diarize(long).speaker_count
        times.append(time.perf_counter() - start)
    t, v = statistics.median(times), statistics.median(vad_times)
    threads = engine.options.threads
    print(f"\nspeed on {audio_min:.1f} min of audio ({repeat} runs, {threads} encoder threads, {found} speakers found):")
    print(f"  diarization: {t / audio_min:.2f} s per audio minute, RTF {t / (audio_min * 60):.4f}")
    print(f"  baseline, Silero VAD pass alone: {v / audio_min:.2f} s per audio minute, RTF {v / (audio_min * 60):.4f}")
    print(f"  diarization / VAD alone: {t / v:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    engine = EmbeddedDiarizer(threads=args.threads)
    engine.start()
    data = dialogues()
    quality(engine, data)
    speed(engine, data, args.minutes, args.repeat)


if __name__ == "__main__":
    main()
