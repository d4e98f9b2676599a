"""Score every voice the service can speak a language with by a speech-recognition round trip; write the voice table.

For each contract language, every candidate voice reads the project's round-trip sentences
(``tests/data/speech/round_trip.yaml``: 12 per language, everyday and game lines, some with numbers):

* Kokoro's own voices for its nine languages (at most ``--per-gender`` of each gender, in Kokoro's order);
* Kokoro's English voices (``af_heart``, ``am_michael``) reading espeak-ng's phonemes, for every other
  language espeak-ng reads;
* espeak-ng's female and male voice of the language, and for a language espeak-ng lacks (``tl``) the voices
  of close languages that could stand in (``STAND_INS``); each also read slower (``SLOW_WPM``, as
  ``espeak.<lang>.<gender>@<wpm>``), since formant speech read slower is heard better in some languages;
* Piper's English voice.

Whisper (base, int8, one greedy pass; ``--whisper tiny`` is quicker and coarser) names the language of each clip,
and transcribes each clip with the language given. A voice scores:

* ``language``: Whisper's probability of the language on the whole read (its first 30 s), and ``named``:
  whether that is the language Whisper names;
* ``cer``: character error rate of the transcript against the text, both normalised as the TTS service
  normalises text (numbers spelt out), lower-cased, without punctuation and spaces;
* ``intelligibility`` = ``language`` × (1 − ``cer``).

An espeak-ng voice keeps the rate it scored best at (the faster one unless a slower one is more intelligible
by ``SLOW_MARGIN``); its score is then recorded under the plain voice id with ``wpm``, the other rates'
under ``rate_scores``, and ``espeak_wpm`` collects the voices that read slower (``voice_wpm`` of espeak-ng's
options in ``configs/local.yaml``).

``configs/voices.yaml`` gets per language and gender the ``default`` voice (the most intelligible; a TTS
request without a voice and ``default-*`` dubbing use it) and the ``ranked`` order of ``professional-*``
dubbing (neural voices within ``PROFESSIONAL_MARGIN`` of the best first, then the rest by score), with every
voice's scores. Ties in intelligibility (Whisper writes Hindi in Urdu script, so every Hindi transcript
has a character error rate of 1) go to the voice Whisper names as the language, then to the higher language
probability (a voice heard as Bengali beats one heard as more likely Hindi, though more likely Bengali too).
It also records which languages Kokoro's English voices should read (``kokoro_borrowed``: where one of them
is a default voice; elsewhere they are left out of the orders, since the service will not offer them) and the
espeak-ng stand-ins worth offering (``stand_ins``: character error rate at most ``STAND_IN_MAX_CER``); those go into the engines'
options in ``configs/local.yaml``. ``docs/voices.md`` gets the table.

    .venv/bin/python calibration/score_voices.py [--langs de,ru] [--whisper base] [--sentences 12]
    .venv/bin/python calibration/score_voices.py --rechoose   # the choices again from the table's scores
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import regex as re
import soxr
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration.voice_table_doc import (  # noqa: E402
    BASE_WPM,
    PROFESSIONAL_MARGIN,
    SLOW_MARGIN,
    SLOW_WPM,
    STAND_IN_MAX_CER,
    table_doc,
    table_yaml,
)
from engines.asr.whisper import WhisperEngine  # noqa: E402
from engines.registry import create_engine  # noqa: E402
from engines.tts.espeak import ESPEAK_VOICES  # noqa: E402
from engines.tts.kokoro_voices import PLANS, gender_of  # noqa: E402
from engines.tts.synthesizer import SpeechRequest, Synthesizer  # noqa: E402
from engines.tts.text import normalise  # noqa: E402
from tests.support.text import edit_rate  # noqa: E402

SENTENCES = ROOT / "tests" / "data" / "speech" / "round_trip.yaml"
CATALOG = ROOT / "configs" / "languages.yaml"
OUT = ROOT / "configs" / "voices.yaml"
DOC = ROOT / "docs" / "voices.md"
#: Languages espeak-ng has no voice for → close languages whose voices may read them (Tagalog: Latin script,
#: near-phonemic spelling; Indonesian and Malay share much of its sound system, Spanish its loanwords).
STAND_INS: dict[str, tuple[str, ...]] = {"tl": ("id", "ms", "es")}
#: Kokoro's English voices that read other languages' phonemes.
BORROWED = ("af_heart", "am_michael")
NEURAL = ("kokoro", "piper")
ENGINES = ("kokoro", "espeak", "piper")


@dataclass(frozen=True)
class Candidate:
    """A voice to score: its id, the engine that speaks it, its gender, and an espeak-ng stand-in code."""

    voice: str
    engine: str
    gender: str
    stand_in: str | None = None
    wpm: int | None = None  # an espeak-ng voice read at this rate rather than BASE_WPM


def clean(text: str, lang: str) -> str:
    """Text as compared: the TTS normalisation (numbers spelt out), NFC, lower case, no punctuation or spaces."""
    text = unicodedata.normalize("NFC", normalise(text, lang)).lower()
    return re.sub(r"[\p{P}\p{S}\s]+", "", text)


def char_error_rate(reference: str, heard: str) -> float:
    """Character edit distance over the reference's length, at most 1 (a loop of made-up words is all wrong, no more)."""
    return min(1.0, edit_rate(list(reference), list(heard)))


def pick(texts: list[str], count: int) -> list[str]:
    """``count`` of a language's sentences, the last two (the ones with numbers) always among them."""
    return texts if count >= len(texts) else texts[: max(0, count - 2)] + texts[-2:]


def candidates(lang: str, engines: dict[str, Any], per_gender: int) -> list[Candidate]:
    out: list[Candidate] = []
    if lang in PLANS:
        counts = {"female": 0, "male": 0}
        for name in PLANS[lang].voices:
            gender = gender_of(name)
            if counts[gender] < per_gender:
                counts[gender] += 1
                out.append(Candidate(f"kokoro.{name}", "kokoro", gender))
    elif lang in engines["kokoro"].languages():
        out += [Candidate(f"kokoro.{name}", "kokoro", gender_of(name)) for name in BORROWED]
    if lang in engines["espeak"].languages() and lang not in STAND_INS:  # not a stand-in under the language's name
        out += [Candidate(f"espeak.{lang}.{g}", "espeak", g, wpm=w) for g in ("female", "male") for w in RATES]
    for stand_in in STAND_INS.get(lang, ()):
        out += [Candidate(f"espeak.{stand_in}.{g}", "espeak", g, stand_in, w) for g in ("female", "male") for w in RATES]
    if lang == "en":
        out.append(Candidate("piper.en_us_joe", "piper", "male"))
    return out


RATES: tuple[int | None, ...] = (None, *SLOW_WPM)


def key(candidate: Candidate) -> str:
    """The candidate's name in the scores: the voice id, with ``@<wpm>`` for a slower read."""
    return candidate.voice if candidate.wpm is None else f"{candidate.voice}@{candidate.wpm}"


def score(synth: Synthesizer, whisper: WhisperEngine, candidate: Candidate, lang: str, texts: list[str]) -> dict[str, float]:
    """How well Whisper hears ``candidate`` reading ``texts`` in ``lang``.

    Each clip is transcribed on its own with the language given (a long concatenation can send Whisper
    into a loop of made-up words); the language is named once, on the whole read (its first 30 s).
    """
    rtfs, edits, length, clips = [], 0.0, 0, []
    number_edits, number_length = 0.0, 0
    speak_lang = candidate.stand_in or lang
    for text in texts:
        started = time.perf_counter()
        speed = (candidate.wpm or BASE_WPM) / BASE_WPM
        request = SpeechRequest(text=text, lang=speak_lang, voice=candidate.voice, speed=speed, output_format="wav")
        audio, rate = synth.render(request)
        rtfs.append((time.perf_counter() - started) / max(len(audio) / rate, 1e-3))
        clip = soxr.resample(audio, rate, 16_000).astype(np.float32)
        heard = " ".join(s.text for s in whisper.transcribe(clip, lang, 0.0).segments)
        reference = clean(text, lang)
        wrong = char_error_rate(reference, clean(heard, lang)) * len(reference)
        edits, length = edits + wrong, length + len(reference)
        if any(c.isdigit() for c in text):
            number_edits, number_length = number_edits + wrong, number_length + len(reference)
        clips += [clip, np.zeros(4_800, np.float32)]  # 0.3 s apart
    probabilities = whisper.language_probabilities(np.concatenate(clips)[: 30 * 16_000])
    language = probabilities.get(lang, 0.0)
    cer = min(1.0, edits / max(length, 1))
    return {
        "intelligibility": round(language * (1.0 - cer), 3),
        "language": round(language, 3),
        "named": max(probabilities, key=probabilities.__getitem__, default="") == lang,
        "cer": round(cer, 3),
        "cer_numbers": round(min(1.0, number_edits / max(number_length, 1)), 3),  # the sentences with digits
        "rtf": round(statistics.median(rtfs), 3),
    }


def choose(scores: dict[str, dict[str, float]], genders: dict[str, str]) -> dict[str, Any]:
    """Default voice and professional order per gender from the scores (stand-ins included)."""
    entry: dict[str, Any] = {"default": {}, "ranked": {}}
    for gender in ("female", "male"):
        # Ties (every Hindi CER is 1): the voice heard as the language, the higher probability, the lower error rate.
        mine = sorted(
            (v for v in scores if genders[v] == gender),
            key=lambda v: (-scores[v]["intelligibility"], -scores[v]["named"], -scores[v]["language"], scores[v]["cer"]),
        )
        if not mine:
            continue
        best = scores[mine[0]]["intelligibility"]
        neural = [v for v in mine if v.split(".")[0] in NEURAL and scores[v]["intelligibility"] >= best - PROFESSIONAL_MARGIN]
        entry["default"][gender] = mine[0]
        entry["ranked"][gender] = neural + [v for v in mine if v not in neural]
    return entry


def start_engines(langs: list[str]) -> dict[str, Any]:
    native = set(PLANS)
    borrowed = tuple(lang for lang in langs if lang not in native and lang in ESPEAK_VOICES)
    stand_ins = {lang: STAND_INS[lang][0] for lang in langs if lang in STAND_INS}
    specs = {
        "kokoro": {"threads": 2, "borrowed_languages": borrowed},
        "piper": {"threads": 2},
        "espeak": {"stand_ins": stand_ins},
    }
    engines = {}
    for name, options in specs.items():
        engine = create_engine(name, options)
        engine.start()
        engines[name] = engine
    return engines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    catalogue = [str(row["code"]) for row in yaml.safe_load(CATALOG.read_text(encoding="utf-8"))["languages"]]
    parser.add_argument("--langs", default=",".join(catalogue))
    parser.add_argument("--sentences", type=int, default=12)
    parser.add_argument("--per-gender", type=int, default=4, help="Kokoro's own voices scored per gender")
    parser.add_argument("--whisper", choices=("base", "tiny"), default="base")
    parser.add_argument("--resume", action="store_true", help="keep the table's other languages (a run cut short)")
    parser.add_argument(
        "--engines", default=",".join(ENGINES), help="score only these engines' voices; the table's other scores stay"
    )
    parser.add_argument("--rechoose", action="store_true", help="only choose again from the scores in the table")
    args = parser.parse_args()
    if args.rechoose:
        table = yaml.safe_load(OUT.read_text(encoding="utf-8"))
        finish(table)
        OUT.write_text(table_yaml(table), encoding="utf-8")
        DOC.write_text(table_doc(table, args.whisper, args.sentences), encoding="utf-8")
        print(f"kokoro borrowed_languages: {table['kokoro_borrowed']}; espeak stand_ins: {table['stand_ins']}")
        return
    langs = args.langs.split(",")
    texts_by_lang = yaml.safe_load(SENTENCES.read_text(encoding="utf-8"))
    engines = start_engines(langs)
    synth = Synthesizer(engines)
    model = "whisper-base" if args.whisper == "base" else "whisper-tiny"
    whisper = WhisperEngine(  # greedy, no word times: the ranking, not the service's best transcript, is measured
        model_dir=str(ROOT / "models" / model), cpu_threads=2, compute_type="int8", vad_filter=False, beam_size=1,
        word_timestamps=False, temperature_fallback=False,
    )  # fmt: skip
    whisper.start()
    table = yaml.safe_load(OUT.read_text(encoding="utf-8")) if OUT.is_file() and args.resume else {}
    languages: dict[str, Any] = table.get("languages") or {}
    for lang in langs:
        texts = pick(texts_by_lang[lang], args.sentences)
        scores: dict[str, dict[str, float]] = {}
        genders: dict[str, str] = {}
        engines_scored = set(args.engines.split(","))
        if engines_scored != set(ENGINES):  # the other engines' voices keep their scores (rates folded in already)
            kept = (languages.get(lang) or {}).get("scores") or {}
            scores = {v: s for v, s in kept.items() if v.split(".")[0] not in engines_scored}
            genders = {v: voice_gender(v) for v in scores}
        for candidate in candidates(lang, engines, args.per_gender):
            if candidate.engine not in engines_scored:
                continue
            scores[key(candidate)] = score(synth, whisper, candidate, lang, texts)
            genders[key(candidate)] = candidate.gender
            print(f"{lang} {key(candidate):30} {candidate.gender:6} {scores[key(candidate)]}", flush=True)
        scores, rate_scores = keep_best_rate(scores)
        genders = {v: g for v, g in genders.items() if v in scores}
        stand_in = _stand_in(lang, scores)
        others = {f"espeak.{s}." for s in STAND_INS.get(lang, ()) if s != stand_in}
        scores = {v: s for v, s in scores.items() if not v.startswith(tuple(others))}
        if stand_in is not None:  # as the service offers it: espeak.<lang>.<gender>, read by the stand-in's voice
            scores = {_rename(v, stand_in, lang): s for v, s in scores.items()}
            genders = {_rename(v, stand_in, lang): g for v, g in genders.items()}
        if stand_in is not None:
            rate_scores = {_rename(v, stand_in, lang): r for v, r in rate_scores.items() if v.startswith(f"espeak.{stand_in}.")}
        languages[lang] = {
            **choose(scores, genders),
            "scores": scores,
            **({"rate_scores": rate_scores} if rate_scores else {}),
            **({"stand_in": stand_in} if stand_in else {}),
        }
        table["languages"] = languages
        OUT.write_text(table_yaml(table), encoding="utf-8")  # after each language: a cut run goes on with --resume --langs
    finish(table)
    OUT.write_text(table_yaml(table), encoding="utf-8")
    DOC.write_text(table_doc(table, args.whisper, args.sentences), encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)} and {DOC.relative_to(ROOT)}")
    print(f"kokoro borrowed_languages: {table['kokoro_borrowed']}; espeak stand_ins: {table['stand_ins']}")


def finish(table: dict[str, Any]) -> None:
    """Choose every language's voices from its scores; Kokoro's borrowed languages are where it is a default."""
    languages: dict[str, Any] = table["languages"]
    for entry in languages.values():  # from every scored voice, also those an earlier finish left out of the orders
        entry.update(choose(entry["scores"], {voice: voice_gender(voice) for voice in entry["scores"]}))
    table["kokoro_borrowed"] = sorted(
        lang
        for lang, entry in languages.items()
        if lang not in PLANS and any(v.startswith("kokoro.") for v in entry["default"].values())
    )
    for lang, entry in languages.items():  # not offered: out of the orders (the scores stay, for the record)
        if lang not in PLANS and lang not in table["kokoro_borrowed"]:
            entry["ranked"] = {g: [v for v in vs if not v.startswith("kokoro.")] for g, vs in entry["ranked"].items()}
    table["stand_ins"] = {lang: entry["stand_in"] for lang, entry in languages.items() if entry.get("stand_in")}
    table["espeak_wpm"] = {
        voice: s["wpm"] for entry in languages.values() for voice, s in entry["scores"].items() if s.get("wpm")
    }


def keep_best_rate(scores: dict[str, dict[str, Any]]) -> tuple[dict[str, dict[str, Any]], dict[str, dict[int, Any]]]:
    """One score per voice: an espeak-ng voice's best rate (a slower one only ``SLOW_MARGIN`` more intelligible).

    Returns the scores by plain voice id (``wpm`` added where a slower rate won) and every rate's scores of the
    voices read at several rates (``{voice: {wpm: score}}``), for the record.
    """
    rates: dict[str, dict[int, dict[str, Any]]] = {}
    kept: dict[str, dict[str, Any]] = {}
    for name, s in scores.items():
        voice, _, wpm = name.partition("@")
        if wpm:
            rates.setdefault(voice, {})[int(wpm)] = s
        else:
            kept[voice] = s
    for voice, slower in rates.items():
        base = kept.get(voice)
        best_wpm, best = max(slower.items(), key=lambda kv: (kv[1]["intelligibility"], kv[1]["language"]))
        if base is None or best["intelligibility"] >= base["intelligibility"] + SLOW_MARGIN:
            kept[voice] = {**best, "wpm": best_wpm}
        if base is not None:
            slower = {BASE_WPM: base, **slower}
        rates[voice] = slower
    return kept, rates


def voice_gender(voice: str) -> str:
    """The gender of a voice id: ``kokoro.am_michael`` (Kokoro's naming), ``espeak.de.male``, ``piper.en_us_joe``."""
    engine, name = voice.split(".", 1)
    if engine == "kokoro":
        return gender_of(name)
    return "male" if engine == "piper" else name.rsplit(".", 1)[1]


def _stand_in(lang: str, scores: dict[str, dict[str, float]]) -> str | None:
    """The stand-in whose voices Whisper transcribes best, when its error rate is at most ``STAND_IN_MAX_CER``.

    Judged by the words, not by the language Whisper names: a close language's accent is what a stand-in is.
    """
    cer = {
        s: min((v["cer"] for k, v in scores.items() if k.startswith(f"espeak.{s}.")), default=1.0)
        for s in STAND_INS.get(lang, ())
    }
    chosen = min(cer, key=cer.__getitem__, default=None)
    return chosen if chosen is not None and cer[chosen] <= STAND_IN_MAX_CER else None


def _rename(voice: str, stand_in: str, lang: str) -> str:
    return voice.replace(f"espeak.{stand_in}.", f"espeak.{lang}.") if voice.startswith(f"espeak.{stand_in}.") else voice


if __name__ == "__main__":
    main()
