"""The tables the output checks judge by: which script a letter belongs to, which scripts each language
is written in, and which languages are close kin (``checks.py`` explains how each is used).

Language codes are API primaries (``pt``, ``zh``); langid's codes are mapped
where they differ (``LANGID_ALIASES``).
"""

from __future__ import annotations

import bisect

# -- scripts ------------------------------------------------------------------

LATIN = "Latin"
CYRILLIC = "Cyrillic"
GREEK = "Greek"
ARMENIAN = "Armenian"
HEBREW = "Hebrew"
ARABIC = "Arabic"
DEVANAGARI = "Devanagari"
BENGALI = "Bengali"
GURMUKHI = "Gurmukhi"
GUJARATI = "Gujarati"
TAMIL = "Tamil"
TELUGU = "Telugu"
KANNADA = "Kannada"
MALAYALAM = "Malayalam"
SINHALA = "Sinhala"
THAI = "Thai"
LAO = "Lao"
KHMER = "Khmer"
MYANMAR = "Myanmar"
GEORGIAN = "Georgian"
ETHIOPIC = "Ethiopic"
HANGUL = "Hangul"
KANA = "Kana"
HAN = "Han"
OTHER = "Other"

#: (first, last, script) code-point ranges, sorted; letters outside every range are OTHER.
RANGES: tuple[tuple[int, int, str], ...] = (
    (0x0041, 0x024F, LATIN),
    (0x0250, 0x02AF, LATIN),  # IPA extensions
    (0x0370, 0x03FF, GREEK),
    (0x0400, 0x052F, CYRILLIC),
    (0x0530, 0x058F, ARMENIAN),
    (0x0590, 0x05FF, HEBREW),
    (0x0600, 0x06FF, ARABIC),
    (0x0750, 0x077F, ARABIC),
    (0x08A0, 0x08FF, ARABIC),
    (0x0900, 0x097F, DEVANAGARI),
    (0x0980, 0x09FF, BENGALI),
    (0x0A00, 0x0A7F, GURMUKHI),
    (0x0A80, 0x0AFF, GUJARATI),
    (0x0B80, 0x0BFF, TAMIL),
    (0x0C00, 0x0C7F, TELUGU),
    (0x0C80, 0x0CFF, KANNADA),
    (0x0D00, 0x0D7F, MALAYALAM),
    (0x0D80, 0x0DFF, SINHALA),
    (0x0E00, 0x0E7F, THAI),
    (0x0E80, 0x0EFF, LAO),
    (0x1000, 0x109F, MYANMAR),
    (0x10A0, 0x10FF, GEORGIAN),
    (0x1100, 0x11FF, HANGUL),
    (0x1200, 0x139F, ETHIOPIC),
    (0x1780, 0x17FF, KHMER),
    (0x1C80, 0x1C8F, CYRILLIC),
    (0x1C90, 0x1CBF, GEORGIAN),
    (0x1D00, 0x1DBF, LATIN),  # phonetic extensions
    (0x1E00, 0x1EFF, LATIN),
    (0x1F00, 0x1FFF, GREEK),
    (0x2C60, 0x2C7F, LATIN),
    (0x2D00, 0x2D2F, GEORGIAN),
    (0x2DE0, 0x2DFF, CYRILLIC),
    (0x2E80, 0x2FDF, HAN),  # radicals
    (0x3005, 0x3007, HAN),  # 々 〆 〇
    (0x3021, 0x3029, HAN),
    (0x3038, 0x303B, HAN),
    (0x3041, 0x30FF, KANA),  # hiragana, katakana, ー
    (0x3131, 0x318F, HANGUL),
    (0x31F0, 0x31FF, KANA),
    (0x3400, 0x4DBF, HAN),
    (0x4E00, 0x9FFF, HAN),
    (0xA640, 0xA69F, CYRILLIC),
    (0xA720, 0xA7FF, LATIN),
    (0xA960, 0xA97F, HANGUL),
    (0xA9E0, 0xA9FF, MYANMAR),
    (0xAA60, 0xAA7F, MYANMAR),
    (0xAB30, 0xAB6F, LATIN),
    (0xAC00, 0xD7FF, HANGUL),
    (0xF900, 0xFAFF, HAN),
    (0xFB00, 0xFB06, LATIN),  # ligatures
    (0xFB1D, 0xFB4F, HEBREW),
    (0xFB50, 0xFDFF, ARABIC),
    (0xFE70, 0xFEFF, ARABIC),
    (0xFF21, 0xFF5A, LATIN),  # fullwidth
    (0xFF66, 0xFF9F, KANA),  # halfwidth
    (0xFFA0, 0xFFDC, HANGUL),
    (0x1B000, 0x1B16F, KANA),
    (0x20000, 0x3FFFF, HAN),
)
_STARTS = [first for first, _, _ in RANGES]

#: Scripts written without spaces between words.
UNSPACED = frozenset({HAN, KANA, THAI, LAO, KHMER, MYANMAR})
#: Scripts of Chinese, Japanese and Korean.
CJK = frozenset({HAN, KANA, HANGUL})
#: Weight of one letter in Latin-letter units (for length and script shares); other scripts weigh 1.
LETTER_WEIGHTS: dict[str, float] = {HAN: 3.5, KANA: 1.5}
#: Weight of a precomposed Hangul syllable; loose jamo weigh 1.
HANGUL_SYLLABLE_WEIGHT = 2.5

_LATIN_LANGUAGES = (
    "af an az br bs ca co cs cy da de en eo es et eu fi fil fo fr ga gd gl ha haw ht hr hu id ig is it jv ku la lb"
    " lt lv mg mo ms mt nb nl nn no oc pl pt qu ro rw se sk sl sm so sq st sv sw tl tk tr uz vi vo wa xh yo zu"
)
#: API primary language -> the scripts it is written in; languages not listed skip the script test.
SCRIPTS: dict[str, frozenset[str]] = {code: frozenset({LATIN}) for code in _LATIN_LANGUAGES.split()}
SCRIPTS.update(
    {
        "zh": frozenset({HAN}),
        "ja": frozenset({HAN, KANA}),
        "ko": frozenset({HANGUL}),
        "sr": frozenset({LATIN, CYRILLIC}),
        "el": frozenset({GREEK}),
        "hy": frozenset({ARMENIAN}),
        "ka": frozenset({GEORGIAN}),
        "th": frozenset({THAI}),
        "lo": frozenset({LAO}),
        "km": frozenset({KHMER}),
        "my": frozenset({MYANMAR}),
        "bn": frozenset({BENGALI}),
        "as": frozenset({BENGALI}),
        "pa": frozenset({GURMUKHI}),
        "gu": frozenset({GUJARATI}),
        "ta": frozenset({TAMIL}),
        "te": frozenset({TELUGU}),
        "kn": frozenset({KANNADA}),
        "ml": frozenset({MALAYALAM}),
        "si": frozenset({SINHALA}),
        "am": frozenset({ETHIOPIC}),
        "ti": frozenset({ETHIOPIC}),
    }
)
for _code in ("ru", "uk", "bg", "be", "mk", "kk", "ky", "mn", "tg"):
    SCRIPTS[_code] = frozenset({CYRILLIC})
for _code in ("he", "yi"):
    SCRIPTS[_code] = frozenset({HEBREW})
for _code in ("ar", "fa", "ur", "ps", "ug", "sd", "ckb"):
    SCRIPTS[_code] = frozenset({ARABIC})
for _code in ("hi", "mr", "ne", "sa"):
    SCRIPTS[_code] = frozenset({DEVANAGARI})

# -- kinship and langid codes -------------------------------------------------

#: Close kin that langid confuses on short texts; never told apart.
KIN_GROUPS = (
    "sr hr bs sl mk bg",
    "no nb nn da sv",
    "is fo",
    "id ms",
    "es ca gl pt an oc",
    "fr oc",
    "it co",
    "cs sk",
    "ru uk be",
    "nl af",
    "de lb",
    "tr az",
    "hi ur",
    "fa tg",
    "kk ky",
    "ro mo",
    "ga gd",
    "xh zu",
)
#: Language -> every language of its kin groups (itself included).
KIN: dict[str, frozenset[str]] = {}
for _group in KIN_GROUPS:
    for _code in _group.split():
        KIN[_code] = KIN.get(_code, frozenset()) | frozenset(_group.split())

#: Standard varieties of one language, where the same sentence is often
#: correct in both: an identical answer is no echo.
TWINS: dict[str, frozenset[str]] = {}
for _group in ("sr hr bs me", "id ms"):
    for _code in _group.split():
        TWINS[_code] = frozenset(_group.split()) - {_code}

#: API primaries whose langid code differs; langid has no, nb and nn apart.
LANGID_ALIASES = {"no": ("no", "nb", "nn"), "nb": ("no", "nb", "nn"), "fil": ("tl",), "iw": ("he",), "in": ("id",)}


def script_of(ch: str) -> str:
    """The script of one letter (``OTHER`` when no range holds it)."""
    code = ord(ch)
    i = bisect.bisect_right(_STARTS, code) - 1
    return RANGES[i][2] if i >= 0 and code <= RANGES[i][1] else OTHER
