"""Measure every TTS voice per language by how well Whisper hears it; write the dubbing voice ranking.

Each voice that speaks a language reads four dialogue lines of the project's development set
(``configs/devset``, rows 11, 13, 14 and 16, in that language); Whisper base (int8, the CPU profile's
ASR) transcribes them with the language given, and the voice scores ``1 - error rate`` (word error rate;
character error rate for ja and zh). ``configs/dubbing-voices.yaml`` gets, per language and gender, the
voices in score order (ties keep the TTS service's order): ``professional-*`` dubbing takes the first.
``docs/dubbing-voices.md`` gets the table. Run on the CPU profile's engines, in-process:

    PYTHONPATH=. .venv/bin/python loadtests/score_voices.py [--langs en,es] [--lines 4]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import soxr
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from deployments.engines.asr.whisper import WhisperEngine  # noqa: E402
from deployments.engines.registry import create_engine  # noqa: E402
from deployments.engines.tts.synthesizer import SpeechRequest, Synthesizer  # noqa: E402
from tests.support.text import char_error_rate, word_error_rate  # noqa: E402

LANGS = ("en", "es", "fr", "it", "pt", "ja", "zh", "de", "ru", "nl", "pl", "tr", "ko", "vi")
ROWS = (10, 12, 13, 15)  # 0-based rows of configs/devset: dialogue lines without placeholders
OUT = ROOT / "configs" / "dubbing-voices.yaml"
DOC = ROOT / "docs" / "dubbing-voices.md"


def lines_for(lang: str, count: int) -> list[str]:
    devset = ROOT / "configs" / "devset"
    if lang == "en":
        rows = [line.split("\t")[2] for line in (devset / "en.tsv").read_text(encoding="utf-8").splitlines()]
    else:
        rows = (devset / f"{lang}.txt").read_text(encoding="utf-8").splitlines()
    return [rows[i] for i in ROWS[:count]]


def score(synth: Synthesizer, whisper: WhisperEngine, voice: str, lang: str, texts: list[str]) -> tuple[float, float]:
    """(1 - median error rate, synthesis real-time factor) of ``voice`` reading ``texts``."""
    errors, rtfs = [], []
    for text in texts:
        started = time.perf_counter()
        audio, rate = synth.render(SpeechRequest(text=text, lang=lang, voice=voice, output_format="wav"))
        rtfs.append((time.perf_counter() - started) / (len(audio) / rate))
        heard = " ".join(
            s.text for s in whisper.transcribe(soxr.resample(audio, rate, 16_000).astype(np.float32), lang, 0.0).segments
        )
        errors.append(char_error_rate(text, heard) if lang in ("ja", "zh") else word_error_rate(text, heard))
    return max(0.0, 1.0 - statistics.median(errors)), statistics.median(rtfs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--langs", default=",".join(LANGS))
    parser.add_argument("--lines", type=int, default=4)
    args = parser.parse_args()
    engines = {}
    for name, options in (("kokoro", {"threads": 2}), ("piper", {"threads": 2}), ("espeak", {})):
        engine = create_engine(name, options)
        engine.start()
        engines[name] = engine
    synth = Synthesizer(engines)
    whisper = WhisperEngine(model_dir=str(ROOT / "models" / "whisper-base"), cpu_threads=2, compute_type="int8")
    whisper.start()
    data = yaml.safe_load(OUT.read_text(encoding="utf-8")) if OUT.is_file() else {}
    languages = data.get("languages") or {}
    for lang in args.langs.split(","):
        if lang != "en" and not (ROOT / "configs" / "devset" / f"{lang}.txt").is_file():
            print(f"{lang}: no development-set references; left unmeasured (default voices)")
            continue
        texts = lines_for(lang, args.lines)
        scores: dict[str, float] = {}
        genders: dict[str, str] = {}
        for voice in synth.voices(lang):
            scores[voice.id], rtf = score(synth, whisper, voice.id, lang, texts)
            genders[voice.id] = voice.gender
            print(f"{lang} {voice.id:28} {voice.gender:6} intelligibility {scores[voice.id]:.2f} rtf {rtf:.2f}", flush=True)
        order = list(scores)
        ranked = {
            g: sorted((v for v in order if genders[v] == g), key=lambda v: (-round(scores[v], 2), order.index(v)))
            for g in ("female", "male")
        }
        languages[lang] = {
            "ranked": {g: v for g, v in ranked.items() if v},
            "scores": {v: round(s, 3) for v, s in scores.items()},
        }
        OUT.write_text(_yaml(languages), encoding="utf-8")  # written after each language: a long run can be resumed
    DOC.write_text(_doc(languages), encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)} and {DOC.relative_to(ROOT)}")


def _yaml(languages: dict) -> str:
    header = (
        "# Written by loadtests/score_voices.py: TTS voices per language and gender, best heard first (docs/dubbing-voices.md).\n"
    )
    return header + yaml.safe_dump({"languages": languages}, sort_keys=True, allow_unicode=True, width=120)


def _doc(languages: dict) -> str:
    rows = [
        "# Dubbing voices, measured",
        "",
        "Intelligibility = 1 − Whisper base's word error rate (character error rate for ja, zh) on the first",
        "`--lines` dialogue lines of `configs/devset` (2 in the committed run; en and hi unmeasured: default order);",
        "written by `loadtests/score_voices.py`. `professional-female` /",
        "`professional-male` dubbing takes the first voice of the gender; `default-*` the TTS service's own default.",
        "",
        "| language | best female | score | best male | score | voices measured |",
        "|---|---|---|---|---|---|",
    ]
    for lang in sorted(languages):
        entry = languages[lang]
        best = {g: (entry["ranked"].get(g) or ["—"])[0] for g in ("female", "male")}
        cells = [f"{best[g]} | {entry['scores'].get(best[g], 0):.2f}" if best[g] != "—" else "— | —" for g in ("female", "male")]
        rows.append(f"| {lang} | {cells[0]} | {cells[1]} | {len(entry['scores'])} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    main()
