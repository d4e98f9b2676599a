"""Kokoro-82M's stock voices and how each language is spoken (docs/tts.md has the table).

Kokoro v1.0 ships native voices for nine languages; its voice file names say
the language (first letter) and gender (second letter): ``af_heart`` is
American English, female. Any language espeak-ng reads can also be spoken from
espeak-ng phonemes with English voices (:func:`borrowed_plan`): accented, and
in some languages heard as English, so the engine offers only the languages
named in its ``borrowed_languages`` option, chosen by measurement
(``calibration/score_voices.py``, docs/voices.md).
"""

from __future__ import annotations

import dataclasses

from engines.tts.espeak import ESPEAK_VOICES

#: Voice-name prefix letter → language code.
PREFIX_LANG: dict[str, str] = {"a": "en", "b": "en", "e": "es", "f": "fr", "h": "hi", "i": "it", "j": "ja", "p": "pt", "z": "zh"}


@dataclasses.dataclass(frozen=True)
class LanguagePlan:
    """How Kokoro speaks one language.

    Attributes:
        g2p: ``espeak`` (espeak-ng phonemes, ``espeak_lang``), ``ja`` (pyopenjtalk + misaki) or ``zh`` (misaki).
        espeak_lang: espeak-ng language for the phonemizer.
        voices: the voices offered, best first (female and male defaults are the first of each gender).
        native: whether the voices were made for this language.
    """

    g2p: str
    espeak_lang: str
    voices: tuple[str, ...]
    native: bool = True


_EN_VOICES = tuple(
    [
        "af_heart",
        "af_bella",
        "af_nicole",
        "af_aoede",
        "af_kore",
        "af_sarah",
        "af_nova",
        "af_sky",
        "af_alloy",
        "af_jessica",
        "af_river",
        "am_michael",
        "am_fenrir",
        "am_puck",
        "am_echo",
        "am_eric",
        "am_liam",
        "am_onyx",
        "am_adam",
        "am_santa",
        "bf_emma",
        "bf_isabella",
        "bf_alice",
        "bf_lily",
        "bm_george",
        "bm_fable",
        "bm_lewis",
        "bm_daniel",
    ]
)
_EN_BORROWED = ("af_heart", "af_bella", "am_michael", "am_fenrir")

#: Kokoro's own languages, spoken with voices made for them.
PLANS: dict[str, LanguagePlan] = {
    "en": LanguagePlan("espeak", "en-us", _EN_VOICES),
    "es": LanguagePlan("espeak", "es", ("ef_dora", "em_alex", "em_santa")),
    "fr": LanguagePlan("espeak", "fr-fr", ("ff_siwis",)),
    "hi": LanguagePlan("espeak", "hi", ("hf_alpha", "hf_beta", "hm_omega", "hm_psi")),
    "it": LanguagePlan("espeak", "it", ("if_sara", "im_nicola")),
    "pt": LanguagePlan("espeak", "pt-br", ("pf_dora", "pm_alex", "pm_santa")),
    "ja": LanguagePlan("ja", "ja", ("jf_alpha", "jf_gongitsune", "jf_nezumi", "jf_tebukuro", "jm_kumo")),
    "zh": LanguagePlan(
        "zh", "cmn", ("zf_xiaobei", "zf_xiaoni", "zf_xiaoxiao", "zf_xiaoyi", "zm_yunjian", "zm_yunxi", "zm_yunxia", "zm_yunyang")
    ),
}


def borrowed_plan(lang: str) -> LanguagePlan | None:
    """How Kokoro speaks ``lang`` with English voices from espeak-ng's phonemes (None: espeak-ng has no such language)."""
    espeak = ESPEAK_VOICES.get(lang)
    if espeak is None or lang in PLANS:
        return None
    return LanguagePlan("espeak", espeak, _EN_BORROWED, native=False)


def plans_for(borrowed: tuple[str, ...] | list[str]) -> dict[str, LanguagePlan]:
    """Kokoro's own languages and the ``borrowed`` ones (unknown codes are left out)."""
    extra = {lang: plan for lang in borrowed if (plan := borrowed_plan(lang)) is not None}
    return {**PLANS, **extra}


def gender_of(voice: str) -> str:
    return "male" if voice[1:2] == "m" else "female"


def language_of(voice: str) -> str:
    return PREFIX_LANG.get(voice[:1], "en")


def display_name(voice: str) -> str:
    return voice.split("_", 1)[1].replace("_", " ").title()
