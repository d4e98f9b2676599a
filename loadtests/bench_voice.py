"""Benchmark: voice cloning and text to speech, in-process on the CPU profile's engines, in one run.

Cloning: for each real speaker with enough clean speech (tests/support/speech.py), sync clones from a
sample (30 s where it has it) are timed, checks and denoising included (median of ``--repeat``); then
the *judge* encoder (the one the fit did not use) scores the clone's speech against the speaker's held-
aside speech, and so does it score the best stock voice (the five stock voices nearest by the judge's
cached embeddings, each re-synthesized on the judge sentences). Printed: clone seconds (goal ≤ 15 s),
clone similarity, best stock similarity, and the difference (goal ≥ +0.10), with ``--enhance`` also the
enhanced clone.

TTS: per engine and language, a two-sentence request through the Synthesizer (the TTS deployment's
code): time to first byte (first encoded chunk; goal ≤ 0.5 s) and real-time factor (synthesis seconds
per audio second; goals: Piper ≤ 0.1, Kokoro ≤ 0.3 in English); medians of ``--repeat`` runs, and each
engine's real-time factor as a ratio of espeak-ng's in the same run.

    .venv/bin/python loadtests/bench_voice.py --repeat 5 [--enhance] [--skip-clone]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engines.errors import BadVoiceSample  # noqa: E402
from engines.registry import create_engine  # noqa: E402
from engines.speaker.encoders import cosine  # noqa: E402
from engines.tts.base import VoiceStyle  # noqa: E402
from engines.tts.synthesizer import SpeechRequest, Synthesizer  # noqa: E402
from engines.voice.cloner import PREPARED_RATE  # noqa: E402
from engines.voice.kokoro_cloner import KokoroCloner  # noqa: E402
from engines.voice.stock import load_cached  # noqa: E402
from tests.support import speech  # noqa: E402

TWO_SENTENCES = {
    "en": "Welcome back to the show. Today we talk about the history of maps.",
    "es": "Bienvenidos de nuevo al programa. Hoy hablamos de la historia de los mapas.",
    "fr": "Bienvenue à nouveau dans l'émission. Aujourd'hui, nous parlons de l'histoire des cartes.",
    "it": "Bentornati al programma. Oggi parliamo della storia delle mappe.",
    "pt": "Bem-vindos de volta ao programa. Hoje falamos da história dos mapas.",
    "hi": "कार्यक्रम में फिर से स्वागत है। आज हम नक्शों के इतिहास की बात करेंगे।",
    "ja": "番組へようこそ。今日は地図の歴史についてお話しします。",
    "zh": "欢迎回到节目。今天我们来谈谈地图的历史。",
    "de": "Willkommen zurück in der Sendung. Heute sprechen wir über die Geschichte der Karten.",
    "fi": "Tervetuloa takaisin ohjelmaan. Tänään puhumme karttojen historiasta.",
}
RUNS = [("kokoro", lang) for lang in ("en", "es", "fr", "it", "pt", "hi", "ja", "zh", "de")] + [("piper", "en"), ("espeak", "en"),
                                                                                                  ("espeak", "fi")]  # fmt: skip
CLONE_SPEAKERS = ("two-cities", "ve9qrp")


def tts_figures(repeat: int) -> None:
    engines = {}
    for name in ("kokoro", "piper", "espeak"):
        engine = create_engine(name, {"threads": 2} if name != "espeak" else {})
        engine.start()
        engines[name] = engine
    print("\nTTS (two sentences, medians of", repeat, "runs)")
    print(f"{'engine':8} {'lang':5} {'ttfb s':>7} {'rtf':>6} {'rtf/espeak':>10} {'audio s':>8}")
    rows = []
    for name, lang in RUNS:
        synth = Synthesizer({name: engines[name]})
        request = SpeechRequest(text=TWO_SENTENCES[lang], lang=lang, output_format="pcm")
        synth.plan(request)
        list(synth.stream(request))  # warm this language's path
        ttfbs, rtfs, seconds = [], [], 0.0
        for _ in range(repeat):
            plan = synth.plan(request)
            started = time.monotonic()
            first = None
            size = 0
            for chunk in synth.stream(request, plan):
                first = first if first is not None else time.monotonic() - started
                size += len(chunk)
            elapsed = time.monotonic() - started
            seconds = size / 2 / plan.sample_rate
            ttfbs.append(first or elapsed)
            rtfs.append(elapsed / seconds)
        rows.append((name, lang, statistics.median(ttfbs), statistics.median(rtfs), seconds))
    espeak_rtf = next(r[3] for r in rows if r[0] == "espeak" and r[1] == "en")
    for name, lang, ttfb, rtf, seconds in rows:
        print(f"{name:8} {lang:5} {ttfb:7.3f} {rtf:6.3f} {rtf / espeak_rtf:10.1f} {seconds:8.2f}")


def clone_figures(enhance: bool, repeat: int, evaluations: int | None = None) -> None:
    cloner = KokoroCloner(**({"evaluations": evaluations} if evaluations else {}))
    cloner.start()
    judge_stock = load_cached(cloner.kokoro, cloner.options.judge_encoder) or {}
    print("\nCloning (judge encoder:", cloner.options.judge_encoder, ")")
    print(f"{'speaker':11} {'sample s':>8} {'mode':8} {'clone s':>7} {'clone':>6} {'best stock':>16} {'delta':>6} {'ratio':>6}")
    for speaker in CLONE_SPEAKERS:
        if speaker not in speech.distinct_speakers():
            continue
        total = speech.seconds_of(speaker)
        sample_s = min(30.0, max(10.5, total - 6.0))
        try:
            sample, held = speech.split_speaker(speaker, sample_s)
        except LookupError:  # too little speech to hold some aside
            continue
        with tempfile.TemporaryDirectory() as folder:
            path = str(speech.write_wav(Path(folder) / "sample.wav", sample, PREPARED_RATE))
            try:
                prepared = cloner.prepare(path)
            except BadVoiceSample as exc:  # the service would refuse this sample too
                print(f"{speaker:11} {len(sample) / PREPARED_RATE:8.1f} refused: {exc}")
                continue
            stock_name, stock_sim = best_stock(cloner, judge_stock, held, prepared.gender)
            for mode in ("standard", "enhanced") if enhance else ("standard",):
                times = []
                for _ in range(repeat if mode == "standard" else 1):
                    started = time.monotonic()  # a sync clone: checks, VAD, SNR and denoising, then the fit
                    prepared = cloner.prepare(path)
                    fitted = cloner.fit(prepared, "en", prepared.gender, enhance=mode == "enhanced")
                    times.append(time.monotonic() - started)
                clone_sim = cloner.judge(VoiceStyle.from_json(fitted.style), held, "en")
                head = f"{speaker:11} {len(sample) / PREPARED_RATE:8.1f} {mode:8} {statistics.median(times):7.1f}"
                tail = f"{stock_name:>10} {stock_sim:5.3f} {clone_sim - stock_sim:+6.3f} {clone_sim / stock_sim:6.3f}"
                print(f"{head} {clone_sim:6.3f} {tail}")


def best_stock(cloner: KokoroCloner, judge_stock: dict[str, np.ndarray], held: np.ndarray, gender: str) -> tuple[str, float]:
    """The stock voice the judge finds closest to the held-aside speech (top five re-synthesized)."""
    target = cloner.judge_encoder.embed(held, PREPARED_RATE)
    ranked = sorted(judge_stock, key=lambda n: -cosine(judge_stock[n], target))[:5] or ["am_michael", "af_heart"]
    scored = [(cloner.judge(f"kokoro.{n}", held, "en"), n) for n in ranked]
    sim, name = max(scored)
    return name, sim


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--enhance", action="store_true", help="also time enhance_quality clones")
    parser.add_argument("--skip-clone", action="store_true")
    parser.add_argument("--skip-tts", action="store_true")
    parser.add_argument("--evaluations", type=int, help="styles a standard fit tries (default: the cloner's)")
    args = parser.parse_args()
    if not args.skip_clone:
        clone_figures(args.enhance, args.repeat, args.evaluations)
    if not args.skip_tts:
        tts_figures(args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
