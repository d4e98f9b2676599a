"""Kokoro-82M's stock voices and how each language is spoken (docs/tts.md has the table).

Kokoro v1.0 ships native voices for nine languages; its voice file names say
the language (first letter) and gender (second letter): ``af_heart`` is
American English, female. Other languages are spoken from espeak-ng phonemes
with an English voice, accented but clearer than espeak-ng alone where that
was measured (MODELS.md: de 0.80, ru 0.87, nl 0.94, pl 0.77, tr 0.85, ko 0.67,
vi 0.74 Whisper word accuracy).
"""

from __future__ import annotations

import dataclasses

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
    "de": LanguagePlan("espeak", "de", _EN_BORROWED, native=False),
    "ru": LanguagePlan("espeak", "ru", _EN_BORROWED, native=False),
    "nl": LanguagePlan("espeak", "nl", _EN_BORROWED, native=False),
    "pl": LanguagePlan("espeak", "pl", _EN_BORROWED, native=False),
    "tr": LanguagePlan("espeak", "tr", _EN_BORROWED, native=False),
    "ko": LanguagePlan("espeak", "ko", _EN_BORROWED, native=False),
    "vi": LanguagePlan("espeak", "vi", _EN_BORROWED, native=False),
}


def gender_of(voice: str) -> str:
    return "male" if voice[1:2] == "m" else "female"


def language_of(voice: str) -> str:
    return PREFIX_LANG.get(voice[:1], "en")


def default_voice(lang: str, gender: str) -> str:
    """The first voice of ``gender`` for ``lang``, else its first voice."""
    voices = PLANS[lang].voices
    return next((v for v in voices if gender_of(v) == gender), voices[0])


def display_name(voice: str) -> str:
    return voice.split("_", 1)[1].replace("_", " ").title()
