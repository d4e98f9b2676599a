"""Judge each LLM translation: is the answer usable, or must the model be asked again?

Small models fail in a few recognisable ways: they answer in the wrong
language, hand the source back, drop or repeat the ``<x0/>`` sentinels that
stand for markup, run away repeating themselves or stop half way.
``check_translation`` names the first such problem it finds (one of
``REASONS``) or returns ``None``. Every rule leans towards passing: a false
rejection costs a re-ask and perhaps a worse engine, a missed one only a
weaker translation, so each rule fires only on evidence that a correct
translation practically never shows.

Texts are judged with the sentinels taken out (each becomes a space).
Web and e-mail addresses, file names, paths and identifiers
(``https://…``, ``config.yaml``, ``player_name``, ``km/h``) are characters
but not language: they count for ``length`` and ``empty`` only. The rules
run in this order and the first that fires is the reason:

``empty``
    The output has no letter or digit while the source has one.
``markup``
    The multiset of sentinels differs: one lost, one added, one repeated.
    Sentinels are read leniently, as ``restore`` reads them (``< x0 />``,
    ``<X0>``, ``&lt;x0/&gt;``, a closing ``</x0>``), so a damaged but
    readable sentinel counts as present while a wrapping pair
    ``<x0>…</x0>`` counts twice. When neither text has a letter or digit
    (sentinels and punctuation only) this is the only rule that applies.
``echo``
    The output equals the source once both are NFKC-casefolded and stripped
    of everything but letters, marks and digits, the source primary language
    differs from the target's and is not its twin (Serbian, Croatian,
    Bosnian and Montenegrin; Indonesian and Malay: the same sentence is
    often correct in both), and the source reads as a phrase: at least 3
    words (a run of letters; in scripts written without spaces, Han, kana,
    Thai, Lao, Khmer and Myanmar, each 2 letters count as a word) and not
    title-cased. Title case, every cased word of 4 or more letters after the
    first one capitalised ("World of Warcraft", "New York City"), marks names
    and titles, which legitimately stay as they are; so do "OK", "Menu",
    numbers and other short strings.
``language``, script test
    Each target language has its script(s): Han for ``zh``; Han or kana for
    ``ja``; Hangul for ``ko``; Cyrillic for ``ru uk bg be mk kk ky mn tg``;
    Latin or Cyrillic for ``sr``; Greek, Hebrew, Arabic (``ar fa ur ps``),
    Devanagari (``hi mr ne``), Bengali, Thai, Georgian, Armenian, Myanmar
    and a few more for their languages; Latin for the rest of the API's
    languages. Letters are weighted as for length (a Han letter 3.5, kana
    1.5, a Hangul syllable 2.5, any other letter 1). Names and terms kept
    from the source in a script foreign to the target are set aside: a run
    of output words found in the source that is at most 2 words long
    ("Wi-Fi", "Steam Workshop", "OK") or runs from a capitalised word to a
    capitalised word ("World of Warcraft"); a longer copied phrase is
    untranslated text and counts. The output fails when its target-script
    letters are less than half of the remaining letters, or when it has no
    target-script letter at all and 3 or more remaining letters. A ``zh``
    output also fails when its remaining kana are 15 % or more of its Han
    and kana letters, and at least 2: that is Japanese. A ``ja`` output
    fails when it has 20 or more Han letters and no kana at all: that is
    Chinese (a kanji-only Japanese title or name is shorter). Targets of
    unknown script skip this test.
``length``
    The output is weighed against the source in Latin-letter units: a Han
    letter counts 3.5, kana 1.5, a precomposed Hangul syllable 2.5, any
    other character 1, a run of whitespace 1. With those weights English,
    Chinese, Japanese and Korean renderings of a sentence weigh about the
    same (over the test sentences in 37 languages every pair lies within
    0.46 .. 2.2, with or without CJK), so one band suffices per kind of
    pair; the CJK band is a little wider because the density of Han text
    varies more. The output must lie within::

        alphabetic <-> alphabetic          0.33 .. 3.0 x source units
        zh, ja or ko on either side        0.25 .. 3.5 x source units

    give or take 4 units, so short strings ("Kilometres per hour" ->
    "km/h") are not judged by their ratio alone. In raw characters the CJK
    band means, for instance, English -> Chinese 0.07 .. 1.0 characters per
    source character, Chinese -> English 0.9 .. 12. Only sources of 12
    units or more are judged. The band is there for runaway repetition and
    truncation, not for style.
``language``, identification
    When source and target share an alphabet (both Latin, both Cyrillic;
    ``sr`` shares either), both languages are known to langid and the target
    is not close kin to the source, langid weighs the output against the
    source language, the target language and the target's close relatives
    only. Names and titles the output kept from the source are set aside
    first: a stretch of output words that are all source words and that
    begins and ends with a capitalised word ("Marketing Manager", "Best of
    the Best"). The output fails when what is left has at least 4 words and
    20 letters and the source language gets probability 0.9 or more:
    untranslated or barely edited source text. Other wrong languages (a
    French answer for a German target) are not looked for. Close kin is
    never told apart, because langid confuses it on short texts and the
    languages share many words; kin groups (target and source in one group):
    sr hr bs sl mk bg; no nb nn da sv; is fo; id ms; es ca gl pt an oc;
    fr oc; it co; cs sk; ru uk be; nl af; de lb; tr az; hi ur; fa tg;
    kk ky; ro mo; ga gd; xh zu.

Language codes are the API's (``pt-BR``, ``zh-TW``, ``en``); only the
primary subtag matters here. langid codes are mapped where they differ
(``no`` also means langid's ``nb`` and ``nn``; ``fil`` is ``tl``).

langid's identifier is built once per process, on first need (about two
seconds), and guarded by a lock. It is never narrowed with
``set_languages``, which would mutate shared state and cost most of a
millisecond per call; the candidate columns of its model are sliced once per
language pair and cached, and the restricted probabilities are computed from
them exactly as ``set_languages`` plus ``norm_probs`` would. A check takes
well under a millisecond after warm-up.
"""

from __future__ import annotations

import bisect
import math
import re
import threading
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

REASONS = ("markup", "echo", "length", "language", "empty")

# -- sentinels ----------------------------------------------------------------

# Read like protect.restore reads engine output: spaces, case, a lost or
# misplaced slash, HTML escaping. Keep in step with protect.SENTINEL (<x0/>).
_SENTINEL = re.compile(r"(?:<|&lt;)\s*/?\s*[xX]\s*(\d+)\s*/?\s*(?:>|&gt;)")

# Web addresses, e-mail addresses, file names, paths and identifiers
# ("https://…", "www.…", "a@b.io", "config.yaml", "player_name", "km/h"):
# characters, not language. They count for length only.
_CHUNK = "[^\\s\u2e80-\uffff]"  # a character of a space-delimited run; CJK text has no spaces
_CODE_LIKE = re.compile(
    rf"(?<!{_CHUNK})(?:[A-Za-z][A-Za-z0-9+.-]*://|www\.){_CHUNK}+"
    rf"|{_CHUNK}+@{_CHUNK}+\.[A-Za-z]{_CHUNK}*"
    rf"|(?<!{_CHUNK}){_CHUNK}*?(?:[A-Za-z0-9]_[A-Za-z0-9]|[A-Za-z0-9][./\\][A-Za-z]){_CHUNK}*"
)

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

# (first, last, script), sorted; letters outside every range are OTHER.
_RANGES: tuple[tuple[int, int, str], ...] = (
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
_STARTS = [first for first, _, _ in _RANGES]

# Scripts written without spaces between words.
_UNSPACED = frozenset({HAN, KANA, THAI, LAO, KHMER, MYANMAR})
_CJK = frozenset({HAN, KANA, HANGUL})
# Weight of one letter in Latin-letter units (for length and script shares).
_WEIGHT = {HAN: 3.5, KANA: 1.5}
_HANGUL_SYLLABLE = 2.5  # precomposed syllables; loose jamo weigh 1

_LATIN_LANGUAGES = (
    "af an az br bs ca co cs cy da de en eo es et eu fi fil fo fr ga gd gl ha haw ht hr hu id ig is it jv ku la lb"
    " lt lv mg mo ms mt nb nl nn no oc pl pt qu ro rw se sk sl sm so sq st sv sw tl tk tr uz vi vo wa xh yo zu"
)
_SCRIPTS: dict[str, frozenset[str]] = {code: frozenset({LATIN}) for code in _LATIN_LANGUAGES.split()}
_SCRIPTS.update(
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
    _SCRIPTS[_code] = frozenset({CYRILLIC})
for _code in ("he", "yi"):
    _SCRIPTS[_code] = frozenset({HEBREW})
for _code in ("ar", "fa", "ur", "ps", "ug", "sd", "ckb"):
    _SCRIPTS[_code] = frozenset({ARABIC})
for _code in ("hi", "mr", "ne", "sa"):
    _SCRIPTS[_code] = frozenset({DEVANAGARI})

# -- kinship and langid codes -------------------------------------------------

_KIN_GROUPS = (
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
_KIN: dict[str, frozenset[str]] = {}
for _group in _KIN_GROUPS:
    for _code in _group.split():
        _KIN[_code] = _KIN.get(_code, frozenset()) | frozenset(_group.split())

# Standard varieties of one language, where the same sentence is often
# correct in both: an identical answer is no echo.
_TWINS: dict[str, frozenset[str]] = {}
for _group in ("sr hr bs me", "id ms"):
    for _code in _group.split():
        _TWINS[_code] = frozenset(_group.split()) - {_code}

# API primaries whose langid code differs; langid has no, nb and nn apart.
_ALIASES = {"no": ("no", "nb", "nn"), "nb": ("no", "nb", "nn"), "fil": ("tl",), "iw": ("he",), "in": ("id",)}

# -- thresholds ---------------------------------------------------------------

ECHO_MIN_WORDS = 3
TITLE_WORD_MIN = 4  # letters of a word whose capital marks title case
LENGTH_MIN_SOURCE = 12.0  # units
LENGTH_SLACK = 4.0  # units either side of the band
BAND_ALPHABETIC = (0.33, 3.0)
BAND_CJK = (0.25, 3.5)
SCRIPT_MIN_SHARE = 0.5
SCRIPT_MIN_FOREIGN = 3  # letters
KANA_IN_ZH_SHARE = 0.15
KANA_IN_ZH_MIN = 2
HAN_WITHOUT_KANA_IN_JA = 20
LANGID_MIN_WORDS = 4
LANGID_MIN_LETTERS = 20
LANGID_SOURCE_PROBABILITY = 0.9

# -- character classes --------------------------------------------------------

_LETTER, _MARK, _DIGIT, _SPACE, _JOINER, _PUNCT = range(6)
_JOINERS = frozenset("'’-‐")
_CHAR_CACHE: dict[str, tuple[int, str]] = {}


def _char_class(ch: str) -> tuple[int, str]:
    """(kind, script) of one character, cached."""
    known = _CHAR_CACHE.get(ch)
    if known is not None:
        return known
    if ch.isalpha():
        code = ord(ch)
        i = bisect.bisect_right(_STARTS, code) - 1
        script = _RANGES[i][2] if i >= 0 and code <= _RANGES[i][1] else OTHER
        result = (_LETTER, script)
    elif ch.isspace():
        result = (_SPACE, "")
    elif ch.isdigit() or ch.isnumeric():
        result = (_DIGIT, "")
    elif ch in _JOINERS:
        result = (_JOINER, "")
    elif unicodedata.category(ch).startswith("M"):
        result = (_MARK, "")
    else:
        result = (_PUNCT, "")
    if len(_CHAR_CACHE) < 65536:
        _CHAR_CACHE[ch] = result
    return result


def _letter_weight(ch: str, script: str) -> float:
    if script == HANGUL:
        return _HANGUL_SYLLABLE if "\uac00" <= ch <= "\ud7a3" else 1.0
    return _WEIGHT.get(script, 1.0)


@dataclass
class _Profile:
    """What the rules need to know about one text, from a single pass."""

    text: str  # sentinels replaced by spaces
    units: float = 0.0  # length in Latin-letter units
    letters: int = 0
    has_alnum: bool = False
    letter_units: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))  # script -> units
    letter_counts: Counter[str] = field(default_factory=Counter)  # script -> letters
    words: list[tuple[str, str]] = field(default_factory=list)  # (script, word)
    skeleton: str = ""  # letters, marks, digits only, for echo

    @property
    def word_count(self) -> int:
        return sum(_word_count(s, w) for s, w in self.words)


def _profile(raw: str) -> _Profile:
    text = _SENTINEL.sub(" ", raw)
    language_text = _CODE_LIKE.sub(" ", text)
    profile = _scan(text, language_text)
    if language_text != text:
        profile.units = _scan(text, text).units
    profile.has_alnum = any(ch.isalnum() for ch in text)
    return profile


def _scan(full: str, text: str) -> _Profile:
    profile = _Profile(full)
    words = profile.words
    skeleton: list[str] = []
    word: list[str] = []
    word_script = ""
    pending_space = False
    units = 0.0
    n = len(text)
    for i, ch in enumerate(text):
        kind, script = _char_class(ch)
        if kind == _LETTER:
            weight = _letter_weight(ch, script)
            profile.letter_units[script] += weight
            profile.letter_counts[script] += 1
            profile.letters += 1
            skeleton.append(ch)
            if word and script != word_script:
                words.append((word_script, "".join(word)))
                word = []
            if not word:
                word_script = script
            word.append(ch)
        else:
            weight = 1.0
            if kind == _MARK:
                skeleton.append(ch)
                if word:
                    word.append(ch)
            elif kind == _JOINER and word and i + 1 < n and _char_class(text[i + 1])[0] == _LETTER:
                word.append(ch)
            else:
                if word:
                    words.append((word_script, "".join(word)))
                    word = []
                if kind == _DIGIT:
                    skeleton.append(ch)
        if kind == _SPACE:
            pending_space = units > 0
            continue
        if pending_space:
            units += 1.0
            pending_space = False
        units += weight
    if word:
        words.append((word_script, "".join(word)))
    profile.units = units
    profile.skeleton = unicodedata.normalize("NFKC", "".join(skeleton)).casefold()
    return profile


def primary(code: str | None) -> str:
    """``pt-BR`` -> ``pt``; ``zh_TW`` -> ``zh``."""
    return (code or "").replace("_", "-").split("-", 1)[0].strip().lower()


# -- rules --------------------------------------------------------------------


def _sentinels(text: str) -> Counter[str]:
    return Counter(str(int(m)) for m in _SENTINEL.findall(text))


def _is_title_like(words: list[tuple[str, str]]) -> bool:
    """Every cased word of 4+ letters after the first starts with a capital (and there is one)."""
    seen = False
    for _, word in words[1:]:
        if len(word) < TITLE_WORD_MIN or word.lower() == word.upper():
            continue
        if not word[0].isupper():
            return False
        seen = True
    return seen


def _is_echo(src: _Profile, out: _Profile, source: str, target: str) -> bool:
    if source == target or target in _TWINS.get(source, ()) or not src.skeleton or src.skeleton != out.skeleton:
        return False
    return src.word_count >= ECHO_MIN_WORDS and not _is_title_like(src.words)


def _word_count(script: str, word: str) -> int:
    return math.ceil(len(word) / 2) if script in _UNSPACED else 1


def _kept_foreign_words(src: _Profile, out: _Profile, scripts: frozenset[str]) -> list[bool]:
    """For each output word: is it a name or term kept from the source in a script foreign to the target?

    A run of consecutive output words, each in a foreign script and found in
    the source, is kept when it is short (2 words at most: "Wi-Fi", "OK",
    "Steam Workshop") or runs from a capitalised word to a capitalised word
    ("World of Warcraft"). A longer copied phrase is untranslated text.
    """
    source_folded = src.text.casefold()
    copied = [s not in scripts and w.casefold() in source_folded for s, w in out.words]
    kept = [False] * len(copied)
    i = 0
    while i < len(copied):
        if not copied[i]:
            i += 1
            continue
        j = i
        while j < len(copied) and copied[j]:
            j += 1
        run = out.words[i:j]
        words = sum(_word_count(s, w) for s, w in run)
        if words <= 2 or (run[0][1][0].isupper() and run[-1][1][0].isupper()):
            kept[i:j] = [True] * (j - i)
        i = j
    return kept


def _script_problem(src: _Profile, out: _Profile, target: str) -> bool:
    scripts = _SCRIPTS.get(target)
    if scripts is None or out.letters == 0:
        return False
    kept = _kept_foreign_words(src, out, scripts)
    native = sum(out.letter_units[s] for s in scripts)
    foreign = 0.0
    foreign_letters = 0
    kana = 0
    for (script, word), is_kept in zip(out.words, kept):
        if is_kept:
            continue
        letters = [ch for ch in word if ch.isalpha()]
        if script == KANA:
            kana += len(letters)
        if script not in scripts:
            foreign += sum(_letter_weight(ch, script) for ch in letters)
            foreign_letters += len(letters)
    if native == 0:
        return foreign_letters >= SCRIPT_MIN_FOREIGN
    if native < SCRIPT_MIN_SHARE * (native + foreign):
        return True
    if target == "zh":
        return kana >= KANA_IN_ZH_MIN and kana >= KANA_IN_ZH_SHARE * (kana + out.letter_counts[HAN])
    if target == "ja":
        return out.letter_counts[KANA] == 0 and out.letter_counts[HAN] >= HAN_WITHOUT_KANA_IN_JA
    return False


def _is_cjk(code: str, profile: _Profile) -> bool:
    if code in ("zh", "ja", "ko"):
        return True
    cjk = sum(profile.letter_units[s] for s in _CJK)
    return cjk > 0 and cjk >= 0.5 * sum(profile.letter_units.values())


def _length_problem(src: _Profile, out: _Profile, source: str, target: str) -> bool:
    if src.units < LENGTH_MIN_SOURCE:
        return False
    low, high = BAND_CJK if _is_cjk(source, src) or _is_cjk(target, out) else BAND_ALPHABETIC
    return not (low * src.units - LENGTH_SLACK <= out.units <= high * src.units + LENGTH_SLACK)


# -- langid -------------------------------------------------------------------

_identifier: Any = None
_identifier_lock = threading.Lock()
_columns: dict[tuple[str, str], tuple[Any, Any, int] | None] = {}


def _langid() -> Any:
    global _identifier
    if _identifier is None:
        with _identifier_lock:
            if _identifier is None:
                from langid.langid import LanguageIdentifier, model

                _identifier = LanguageIdentifier.from_modelstring(model, norm_probs=True)
    return _identifier


def _langid_codes(code: str, known: Sequence[str]) -> tuple[str, ...]:
    return tuple(c for c in _ALIASES.get(code, (code,)) if c in known)


def _candidates(source: str, target: str) -> tuple[Any, Any, int] | None:
    """Model columns for (source codes first, then target and its kin), or None when not comparable."""
    key = (source, target)
    if key in _columns:
        return _columns[key]
    result = None
    identifier = _langid()
    classes = list(identifier.nb_classes)
    source_codes = _langid_codes(source, classes)
    target_codes = _langid_codes(target, classes)
    if source_codes and target_codes:
        kin = sorted(_KIN.get(target, frozenset()) - {source, target})
        others = [c for k in (target, *kin) for c in _langid_codes(k, classes)]
        others = [c for c in dict.fromkeys(others) if c not in source_codes]
        index = [classes.index(c) for c in (*source_codes, *others)]
        import numpy as np

        result = (np.ascontiguousarray(identifier.nb_ptc[:, index]), identifier.nb_pc[index].copy(), len(source_codes))
    with _identifier_lock:
        _columns[key] = result
    return result


def _source_probability(text: str, source: str, target: str) -> float:
    """langid's probability of the source language among source, target and the target's kin."""
    columns = _candidates(source, target)
    if columns is None:
        return 0.0
    ptc, pc, n_source = columns
    identifier = _langid()
    with _identifier_lock:
        fv = identifier.instance2fv(text)
    log_probs = fv @ ptc + pc
    top = float(log_probs.max())
    weights = [math.exp(float(v) - top) for v in log_probs]
    return sum(weights[:n_source]) / sum(weights)


def _without_kept_names(src: _Profile, out: _Profile) -> list[str]:
    """The output's words less the names and titles it kept from the source.

    A name is a stretch of output words, each a word of the source too, that
    begins and ends with a capitalised word: "Best of the Best", "Marketing
    Manager", the "Press" of an untranslated "Press any key". Such kept
    terms are no evidence of an untranslated answer.
    """
    source_words = {w for _, w in src.words}
    words = [w for _, w in out.words]
    keep = [True] * len(words)
    i = 0
    while i < len(words):
        if words[i] not in source_words:
            i += 1
            continue
        j = i
        while j < len(words) and words[j] in source_words:
            j += 1
        capitalised = [k for k in range(i, j) if words[k][0].isupper()]
        if capitalised and capitalised[0] == 0 and not _title_like(words[: capitalised[-1] + 1]):
            # The first word is capitalised because it starts the sentence ("The train to London ..."),
            # unless the stretch reads like a title ("Best of the Best").
            capitalised = capitalised[1:]
        if capitalised:
            for k in range(capitalised[0], capitalised[-1] + 1):
                keep[k] = False
        i = j
    return [w for w, k in zip(words, keep) if k]


def _title_like(words: list[str]) -> bool:
    """Every word capitalised or a short joining word (of, the, to, de, la...)."""
    return all(w[0].isupper() or len(w) <= 3 for w in words)


def _identification_problem(src: _Profile, out: _Profile, source: str, target: str) -> bool:
    if not source or source == target or source in _KIN.get(target, ()):
        return False
    source_scripts = _SCRIPTS.get(source, frozenset())
    shared = source_scripts & _SCRIPTS.get(target, frozenset())
    if not shared or not shared <= {LATIN, CYRILLIC}:
        return False
    words = _without_kept_names(src, out)
    if len(words) < LANGID_MIN_WORDS or sum(len(w) for w in words) < LANGID_MIN_LETTERS:
        return False
    return _source_probability(" ".join(words), source, target) >= LANGID_SOURCE_PROBABILITY


# -- API ----------------------------------------------------------------------


def check_translation(source: str, output: str, source_lang: str, target_lang: str) -> str | None:
    """The reason the output is unusable (one of REASONS) or None when it passes."""
    src_code, tgt_code = primary(source_lang), primary(target_lang)
    src, out = _profile(source), _profile(output)
    if src.has_alnum and not out.has_alnum:
        return "empty"
    if _sentinels(source) != _sentinels(output):
        return "markup"
    if not src.has_alnum and not out.has_alnum:
        return None
    if _is_echo(src, out, src_code, tgt_code):
        return "echo"
    if _script_problem(src, out, tgt_code):
        return "language"
    if _length_problem(src, out, src_code, tgt_code):
        return "length"
    if _identification_problem(src, out, src_code, tgt_code):
        return "language"
    return None


def check_translations(
    sources: Sequence[str],
    outputs: Sequence[str],
    source_lang: str,
    target_lang: str,
) -> list[str | None]:
    """check_translation for each (source, output) pair, in order."""
    if len(sources) != len(outputs):
        raise ValueError(f"{len(sources)} sources but {len(outputs)} outputs")
    return [check_translation(s, o, source_lang, target_lang) for s, o in zip(sources, outputs)]
