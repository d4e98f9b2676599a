"""Benchmark: a two-speaker video dubbed in the speakers' own voices (``dubbing_voice=original``) against stock voices.

The video alternates turns of two real male speakers (tests/support/speech.py: "two-cities", a reader,
and "ve9qrp", a radio amateur), 30 s of each; what each says after those 30 s is held aside. The service
(configs/local.yaml's engines, diarization on, en → es, no background kept) dubs it twice: with
``original`` (a voice fitted per speaker) and with ``default-male`` (today's stock choice). For each
speaker, the judge encoder (Resemblyzer, which the fit does not use) compares the dub's lines of that
speaker with the speaker's held-aside speech. Prints the similarity of each dub per speaker, the
difference, each fit's seconds, and the two jobs' wall times.

    PYTHONPATH=. .venv/bin/python loadtests/bench_own_voices.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engines.speaker.encoder_factory import load_encoder  # noqa: E402
from engines.speaker.encoders import cosine  # noqa: E402
from loadtests.bench_video import service_job  # noqa: E402
from tests.support import speech  # noqa: E402

RATE = 16_000
SPEAKERS = ("two-cities", "ve9qrp")
TURN_S, TURNS, GAP_S = 6.0, 5, 0.7


def build_dialogue(folder: Path) -> tuple[Path, list[tuple[float, float, str]], dict[str, np.ndarray]]:
    """The video, its turns (start, end, speaker) and each speaker's held-aside speech."""
    turns, pieces, held, t = [], [], {}, 0.0
    samples = {}
    for name in SPEAKERS:
        samples[name], held[name] = speech.split_speaker(name, TURN_S * TURNS, RATE)
    for i in range(TURNS):
        for name in SPEAKERS:
            piece = samples[name][int(i * TURN_S * RATE) : int((i + 1) * TURN_S * RATE)]
            turns.append((t, t + len(piece) / RATE, name))
            pieces += [piece, np.zeros(int(GAP_S * RATE), np.float32)]
            t += len(piece) / RATE + GAP_S
    wav = speech.write_wav(folder / "dialogue.wav", np.concatenate(pieces), RATE)
    video = folder / "dialogue.mp4"
    subprocess.run(
        ["ffmpeg", "-v", "error", "-y", "-i", str(wav), "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=15",
         "-shortest", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", str(video)],
        check=True, timeout=120,
    )  # fmt: skip
    return video, turns, held


def decode(video: Path) -> np.ndarray:
    raw = subprocess.run(
        ["ffmpeg", "-v", "error", "-i", str(video), "-f", "s16le", "-ac", "1", "-ar", str(RATE), "-"],
        capture_output=True, check=True, timeout=120,
    ).stdout  # fmt: skip
    return np.frombuffer(raw, "<i2").astype(np.float32) / 32768.0


def true_speaker(line: dict[str, Any], turns: list[tuple[float, float, str]]) -> str | None:
    middle = (line["cue_start"] + line["cue_end"]) / 2
    return next((name for start, end, name in turns if start <= middle <= end), None)


def main() -> None:
    judge = load_encoder("resemblyzer", threads=2)
    outputs: dict[str, tuple[np.ndarray, dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        video, turns, held = build_dialogue(Path(tmp))

        def keep(label: str, task: dict, client: httpx.Client) -> None:
            assert task["status"] == "completed", task
            report = client.get(task["result"]["dubbing_report_url"]).json()
            dubbed = Path(tmp) / f"{label}.mp4"
            dubbed.write_bytes(client.get(task["result"]["video_url"]).content)
            outputs[label] = (decode(dubbed), report)

        fields = {"output_format": "srt", "enable_dubbing": "true", "enable_diarization": "true", "dubbing_bg_music": "0"}
        jobs = service_job(video, {"original": {**fields, "dubbing_voice": "original"},
                                   "stock": {**fields, "dubbing_voice": "default-male"}}, on_done=keep)  # fmt: skip
    targets = {name: judge.embed(held[name], RATE) for name in SPEAKERS}
    print(f"\nvideo {turns[-1][1]:.1f} s, {len(SPEAKERS)} speakers; judge: Resemblyzer against each speaker's held-aside speech")
    similarity: dict[str, dict[str, float]] = {}
    for label, (audio, report) in outputs.items():
        for name in SPEAKERS:
            lines = [line for line in report["lines"] if true_speaker(line, turns) == name]
            dub = np.concatenate([audio[int(line["start"] * RATE) : int(line["end"] * RATE)] for line in lines])
            similarity.setdefault(name, {})[label] = cosine(judge.embed(dub, RATE), targets[name])
        voices = {k: (v.get("origin"), v.get("own_voice")) for k, v in report["voices"].items()}
        print(f"{label:9} job {jobs[label][0]:6.1f} s; voices: {json.dumps(voices)}")
    print(f"\n{'speaker':11} {'original':>9} {'stock':>7} {'delta':>7}")
    for name, sims in similarity.items():
        print(f"{name:11} {sims['original']:9.3f} {sims['stock']:7.3f} {sims['original'] - sims['stock']:+7.3f}")
    extra = jobs["original"][0] - jobs["stock"][0]
    print(f"extra wall time for original: {extra:.1f} s ({extra / len(SPEAKERS):.1f} s per speaker)")


if __name__ == "__main__":
    main()
