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

Tables (scripts, kin, twins): ``language_tables.py``; the text profile
(weights, words): ``text_profile.py``; kept names: ``kept_terms.py``;
langid: ``langid_source.py``. A check takes well under a millisecond after
warm-up.
"""

from __future__ import annotations

from collections.abc import Sequence

from engines.translation.kept_terms import kept_foreign_words, without_kept_names
from engines.translation.langid_source import source_probability
from engines.translation.language_tables import CJK, CYRILLIC, HAN, KANA, KIN, LATIN, SCRIPTS, TWINS
from engines.translation.text_profile import Profile, letter_weight, profile, sentinel_counts

REASONS = ("markup", "echo", "length", "language", "empty")

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


def primary(code: str | None) -> str:
    """``pt-BR`` -> ``pt``; ``zh_TW`` -> ``zh``."""
    return (code or "").replace("_", "-").split("-", 1)[0].strip().lower()


# -- rules --------------------------------------------------------------------


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


def _is_echo(src: Profile, out: Profile, source: str, target: str) -> bool:
    if source == target or target in TWINS.get(source, ()) or not src.skeleton or src.skeleton != out.skeleton:
        return False
    return src.word_count >= ECHO_MIN_WORDS and not _is_title_like(src.words)


def _script_problem(src: Profile, out: Profile, target: str) -> bool:
    scripts = SCRIPTS.get(target)
    if scripts is None or out.letters == 0:
        return False
    kept = kept_foreign_words(src, out, scripts)
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
            foreign += sum(letter_weight(ch, script) for ch in letters)
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


def _is_cjk(code: str, text: Profile) -> bool:
    if code in ("zh", "ja", "ko"):
        return True
    cjk = sum(text.letter_units[s] for s in CJK)
    return cjk > 0 and cjk >= 0.5 * sum(text.letter_units.values())


def _length_problem(src: Profile, out: Profile, source: str, target: str) -> bool:
    if src.units < LENGTH_MIN_SOURCE:
        return False
    low, high = BAND_CJK if _is_cjk(source, src) or _is_cjk(target, out) else BAND_ALPHABETIC
    return not (low * src.units - LENGTH_SLACK <= out.units <= high * src.units + LENGTH_SLACK)


def _identification_problem(src: Profile, out: Profile, source: str, target: str) -> bool:
    if not source or source == target or source in KIN.get(target, ()):
        return False
    source_scripts = SCRIPTS.get(source, frozenset())
    shared = source_scripts & SCRIPTS.get(target, frozenset())
    if not shared or not shared <= {LATIN, CYRILLIC}:
        return False
    words = without_kept_names(src, out)
    if len(words) < LANGID_MIN_WORDS or sum(len(w) for w in words) < LANGID_MIN_LETTERS:
        return False
    return source_probability(" ".join(words), source, target) >= LANGID_SOURCE_PROBABILITY


# -- API ----------------------------------------------------------------------


def check_translation(source: str, output: str, source_lang: str, target_lang: str) -> str | None:
    """The reason the output is unusable (one of REASONS) or None when it passes."""
    src_code, tgt_code = primary(source_lang), primary(target_lang)
    src, out = profile(source), profile(output)
    if src.has_alnum and not out.has_alnum:
        return "empty"
    if sentinel_counts(source) != sentinel_counts(output):
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
