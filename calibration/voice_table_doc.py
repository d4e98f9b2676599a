"""The voice table as written to ``configs/voices.yaml`` and ``docs/voices.md`` (calibration/score_voices.py)."""

from __future__ import annotations

from typing import Any

import yaml

#: A neural voice this close to the best voice's intelligibility leads the professional order.
PROFESSIONAL_MARGIN = 0.05
#: A stand-in voice is offered where Whisper, told the language, hears it at least as well as the median
#: espeak-ng voice of a language espeak-ng has (character error rate 0.53 in the 2026-11 table).
STAND_IN_MAX_CER = 0.5
#: espeak-ng's default rate (words per minute) and the slower rates its voices are also scored at.
BASE_WPM = 175
SLOW_WPM = (140, 115)
#: A slower rate is kept only when it is at least this much more intelligible than the faster one.
SLOW_MARGIN = 0.02


def table_yaml(table: dict[str, Any]) -> str:
    header = (
        "# Written by calibration/score_voices.py (docs/voices.md): per language and gender the most intelligible voice\n"
        "# (`default`) and the professional order (`ranked`), from a Whisper round trip of every candidate voice.\n"
    )
    return header + yaml.safe_dump(table, sort_keys=True, allow_unicode=True, width=120)


def table_doc(table: dict[str, Any], whisper: str, sentences: int) -> str:
    rows = [
        "# Voices, measured",
        "",
        f"Every voice the service can speak a language with read the project's {sentences} round-trip sentences of",
        f"that language (`tests/data/speech/round_trip.yaml`). Whisper {whisper} (int8, greedy) gave the probability",
        "of the language on the whole read (**lang**; ✓ where it is the language Whisper names) and transcribed",
        "each sentence with the language given (**CER**: character error rate, numbers spelt out, without",
        "punctuation and spaces; **#CER**: the same on the two sentences with numbers). **Score** = lang × (1 − CER).",
        "espeak-ng voices were also read slower; a voice marked *at N wpm* is offered at that rate.",
        "The most intelligible voice of each gender is the language's default (a TTS request without a voice,",
        "`default-*` dubbing); ties go to the voice Whisper names as the language (✓), then to the higher lang",
        "(Whisper base writes Hindi in Urdu script, so every Hindi CER is 1). `professional-*` dubbing takes a",
        "neural voice (Kokoro, Piper) when it is within",
        f"{PROFESSIONAL_MARGIN:.2f} of the best. Written by `calibration/score_voices.py` with `configs/voices.yaml`.",
        "",
        "| language | default female | score / lang / CER / #CER | default male | score / lang / CER / #CER"
        " | other voices (score) |",
        "|---|---|---|---|---|---|",
    ]
    named = 0
    for lang, entry in sorted(table.get("languages", {}).items()):
        scores = entry["scores"]
        defaults = entry.get("default", {})
        cells = []
        for gender in ("female", "male"):
            voice = defaults.get(gender)
            s = scores.get(voice) if voice else None
            mark = " ✓" if s and s.get("named") else ""
            if s:
                cer = f"{s['cer']:.2f} / {s['cer_numbers']:.2f}"
                rate = f" at {s['wpm']} wpm" if s.get("wpm") else ""
                cells.append(f"{voice}{rate} | {s['intelligibility']:.2f} / {s['language']:.2f}{mark} / {cer}")
            else:
                cells.append("— | —")
        others = ", ".join(f"{v} ({s['intelligibility']:.2f})" for v, s in scores.items() if v not in defaults.values())
        rows.append(f"| {lang} | {cells[0]} | {cells[1]} | {others} |")
        named += any(scores[v].get("named") for v in defaults.values() if v in scores)
    rows += [
        "",
        f"Languages whose default voice Whisper names right: **{named} of {len(table.get('languages', {}))}**.",
        f"Kokoro's English voices read: {', '.join(table.get('kokoro_borrowed', [])) or 'none'}"
        " (where one of them is a default voice). espeak-ng stand-ins (a close language's voice, offered at a CER of",
        f" {STAND_IN_MAX_CER} or less): {table.get('stand_ins') or 'none'}.",
        f"espeak-ng voices read slower than {BASE_WPM} words per minute (a slower read scored at least {SLOW_MARGIN}"
        f" more intelligible; rates tried {', '.join(map(str, SLOW_WPM))}): "
        + (", ".join(f"{v} {w}" for v, w in sorted(table.get("espeak_wpm", {}).items())) or "none")
        + ".",
        "",
    ]
    return "\n".join(rows)
