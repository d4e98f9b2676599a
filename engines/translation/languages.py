"""Language names and pairs the LLM translator works with (API codes)."""

from __future__ import annotations

from collections.abc import Sequence

#: English names, because instruction-tuned models follow "into Brazilian
#: Portuguese" far better than "into pt-BR".
LANGUAGE_NAMES: dict[str, str] = {
    "af": "Afrikaans", "sq": "Albanian", "ar": "Arabic", "hy": "Armenian",
    "az": "Azerbaijani", "bn": "Bengali", "bg": "Bulgarian", "my": "Burmese",
    "ca": "Catalan", "zh": "Chinese (Simplified)", "hr": "Croatian", "cs": "Czech",
    "da": "Danish", "nl": "Dutch", "en": "English", "et": "Estonian",
    "fi": "Finnish", "fr": "French", "ka": "Georgian", "de": "German",
    "el": "Greek", "he": "Hebrew", "hi": "Hindi", "hu": "Hungarian",
    "is": "Icelandic", "id": "Indonesian", "it": "Italian", "ja": "Japanese",
    "ko": "Korean", "lv": "Latvian", "lt": "Lithuanian", "ms": "Malay",
    "no": "Norwegian (Bokmål)", "fa": "Persian", "pl": "Polish", "pt": "Portuguese",
    "ro": "Romanian", "ru": "Russian", "sr": "Serbian", "sk": "Slovak",
    "sl": "Slovenian", "es": "Spanish", "sw": "Swahili", "sv": "Swedish",
    "tl": "Tagalog (Filipino)", "th": "Thai", "tr": "Turkish", "uk": "Ukrainian",
    "vi": "Vietnamese",
    "en-US": "American English", "en-GB": "British English",
    "pt-BR": "Brazilian Portuguese", "pt-PT": "European Portuguese",
    "zh-CN": "Simplified Chinese (Mainland China)", "zh-TW": "Traditional Chinese (Taiwan)",
    "fr-CA": "Canadian French", "es-MX": "Mexican Spanish", "nl-BE": "Flemish (Belgian Dutch)",
}  # fmt: skip

DEFAULT_LANGUAGES: tuple[str, ...] = tuple(LANGUAGE_NAMES)


def language_name(code: str) -> str:
    """Human name for a prompt; unknown codes pass through unchanged."""
    return LANGUAGE_NAMES.get(code, code)


def primary(code: str) -> str:
    """``pt-BR`` -> ``pt``."""
    return code.split("-", 1)[0]


def language_pairs(languages: Sequence[str]) -> frozenset[tuple[str, str]]:
    """Ordered pairs of distinct primaries, plus each variant as a target.

    Variants are targets only (sources are detected or given as primaries),
    and never of their own primary: ``en -> en-GB`` is localisation, not
    translation.
    """
    primaries = [c for c in languages if "-" not in c]
    variants = [c for c in languages if "-" in c]
    pairs = {(s, t) for s in primaries for t in primaries if s != t}
    pairs |= {(s, v) for s in primaries for v in variants if s != primary(v)}
    return frozenset(pairs)
