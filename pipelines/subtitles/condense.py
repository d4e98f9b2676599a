"""Whether a shorter translation of a subtitle still says what matters.

When a cue is still too fast to read after using all the time available, the pipeline asks the
translation model for a shorter translation of the sentence within :func:`char_budget` characters.
:func:`keeps_meaning` accepts that shorter version only if it

* keeps every number written in digits, compared after removing the language's thousands
  separators ("1,000" == "1000" in English; "1.000" == "1 000" == "1000" in German) and reading its
  decimal mark ("3.5" in English, "3,5" in German). Digits may not become words ("12" -> "twelve");
  words may become digits, so numbers only in the shorter text are allowed;
* keeps at least as many negations (:data:`NEGATIONS`) as the original;
* keeps every glossary term that occurs in the original (case-insensitive substring);
* keeps every name: in scripts with letter case, a capitalised word that is not the first word of
  a sentence or of a dialogue line ("- ...") and not the pronoun "I", exactly as written. German is
  skipped (every noun is capitalised), and so is text written all in capitals. A name that is also
  a glossary term follows the term rule (case-insensitive);
* is not empty and not longer than the original.

Negations match whole words in scripts written with spaces, and substrings in Chinese, Japanese and
Korean, whose negations are single characters or verb endings. Substrings also hit some unrelated
words; the most common (未来 "future", 特别 "especially", 必ず "surely", まず "first", 안녕 "hello")
are removed first, but others remain: 别 in 区别 "difference", 无 in 无聊 "boring", ず in ずるい "sly",
ぬ in 死ぬ "die", 안 in 안경 "glasses", 못 in 못생긴 "ugly". Whole words misfire too: French
"personne" is also "person", Arabic "ما" also "what", Vietnamese "không" also sits in "không khí"
("air"). Every such misfire can only refuse an honest shortening, never accept a bad one.
An immediate repetition ("No, no, no!") counts once, and the French "ne" counts only where no
"pas", "jamais", "rien"... answers it, so "Je sais pas" keeps the negation of "Je ne sais pas".
Out of scope: negation written inside a verb (Turkish -ma/-me suffixes, Czech ne- verbs beyond the
few listed); declined names (Russian "Ивана" for "Иван") are compared as written.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from functools import cache

from engines.text.sentences import ABBREVIATIONS, split
from pipelines.subtitles.profanity import primary_language
from pipelines.subtitles.text import display_length

#: Negation words per primary language, lower case. An entry ending in ``*`` matches any word
#: starting with it and one starting with ``*`` any word ending with it. In Chinese, Japanese and
#: Korean an entry matches anywhere in the text.
# fmt: off
NEGATIONS: dict[str, tuple[str, ...]] = {
    "en": ("not", "no", "never", "*n't", "nothing", "nobody", "none", "cannot", "neither", "nor", "nowhere"),
    "es": ("no", "nunca", "nada", "nadie", "ni", "tampoco", "jamás", "ningún", "ninguno", "ninguna"),
    "fr": ("ne", "n'*", "pas", "jamais", "rien", "personne", "aucun", "aucune", "ni", "nul", "nulle"),
    "de": ("nicht", "kein*", "nie", "niemals", "nichts", "niemand*", "nirgends", "weder", "nein"),
    "pt": ("não", "nunca", "nada", "ninguém", "nem", "jamais", "nenhum", "nenhuma"),
    "it": ("non", "mai", "niente", "nulla", "nessun*", "né", "neanche", "nemmeno", "neppure"),
    "ru": ("не", "нет", "никогда", "ничего", "ничто", "никто", "никого", "нигде", "никуда", "ни", "нельзя"),
    "uk": ("не", "ні", "немає", "нема", "ніколи", "нічого", "ніхто", "нікого", "ніде"),
    "nl": ("niet", "geen", "nooit", "niets", "niks", "niemand", "nergens"),
    "pl": ("nie", "nigdy", "nic", "niczego", "nikt", "nikogo", "nigdzie", "żaden", "żadn*", "ani"),
    "cs": ("ne", "nikdy", "nic", "nikdo", "nikoho", "nikde", "žádn*", "ani", "není", "nejsem", "nejsi",
           "nejsme", "nejste", "nejsou", "nemám", "nemá", "nevím", "nemůžu", "nechci"),
    "sv": ("inte", "ej", "aldrig", "ingen", "inget", "inga", "ingenting", "varken"),
    "da": ("ikke", "ingen", "intet", "aldrig", "ingenting", "hverken"),
    "no": ("ikke", "ikkje", "ingen", "intet", "aldri", "ingenting", "verken"),
    "tr": ("değil", "yok", "hiç", "hiçbir", "asla", "hayır"),
    "ar": ("لا", "لم", "لن", "ليس", "ليست", "لست", "لسنا", "ليسوا", "ما", "ولا", "ولم", "ولن", "وليس", "فلا",
           "فلم", "فلن"),
    "hi": ("नहीं", "नही", "न", "मत"),
    "id": ("tidak", "tak", "bukan", "jangan", "belum", "nggak", "gak", "enggak"),
    "ms": ("tidak", "tak", "bukan", "jangan", "belum"),
    "vi": ("không", "chưa", "chẳng", "chả", "đừng"),
    "zh": ("不", "没", "沒", "別", "别", "未", "无", "無", "勿"),
    "ja": ("ない", "なかっ", "ません", "ず", "ぬ"),
    "ko": ("안", "못", "않", "없", "아니"),
}
#: Words that contain a negation substring without negating: removed before counting.
_NOT_NEGATIONS: dict[str, tuple[str, ...]] = {
    "zh": ("未来", "未來", "特别", "特別", "别人", "別人", "无论", "無論", "不过", "不過"),
    "ja": ("必ず", "まず", "ずっと", "ずつ", "わずか", "ずいぶん"),
    "ko": ("안녕", "안에", "안전", "안내", "잘못"),
}
#: Languages that write thousands as "1.000" or "1 000" and decimals as "3,5".
_DECIMAL_COMMA = frozenset({
    "de", "es", "fr", "pt", "it", "ru", "uk", "be", "nl", "pl", "cs", "sk", "sl", "hr", "sr", "bs", "bg",
    "ro", "hu", "el", "tr", "az", "kk", "id", "vi", "sv", "da", "no", "fi", "et", "lv", "lt", "ca", "gl",
})
# fmt: on
_ALIASES = {"nb": "no", "nn": "no"}
_SUBSTRING_LANGUAGES = frozenset({"zh", "ja", "ko"})
#: Capitalise every noun, so a capital says nothing about names.
_NOUNS_CAPITALISED = frozenset({"de", "lb"})
#: Negation particles that need no partner: counted only beyond the other negation words.
_PARTICLES = {"fr": ("ne", "n'*")}
_APOSTROPHES = "'’"
_DASHES = ("-", "–", "—")
#: Spaces that group digits in every language; the plain space only where the decimal mark is a comma.
_GROUP_SPACES = "\u00a0\u202f\u2009"
_ARABIC_MARKS = re.compile("[\u0640\u064b-\u065f\u0670]")  # tatweel and harakat
#: Absorbs float error in ``seconds * cps`` (0.57 * 100 == 56.99999999999999).
_EPSILON = 1e-9


def keeps_meaning(original: str, shorter: str, language: str, terms: Sequence[str] = ()) -> bool:
    """Whether ``shorter`` may replace ``original``: see the module docstring for what it must keep."""
    return not reasons(original, shorter, language, terms)


def reasons(original: str, shorter: str, language: str, terms: Sequence[str] = ()) -> list[str]:
    """Why ``shorter`` was refused ("number 1,000 dropped", "negation dropped"); empty when it is kept."""
    if not shorter.strip():
        return ["empty"]
    found = []
    size, limit = display_length(shorter.strip()), display_length(original.strip())
    if size > limit:
        found.append(f"longer than the original ({size} > {limit} characters)")
    lang = _language(language)
    kept = _numbers(shorter, lang)
    found += [f"number {surface} dropped" for value, surface in _numbers(original, lang).items() if value not in kept]
    if _negations(shorter, lang) < _negations(original, lang):
        found.append("negation dropped")
    found += [f"term {term} dropped" for term in _dropped_terms(original, shorter, terms)]
    found += [f"name {name} dropped" for name in _dropped_names(original, shorter, lang, terms)]
    return found


def char_budget(seconds: float, cps: float, label: str = "") -> int:
    """The most characters a cue can hold: ``floor(seconds * cps)`` less the speaker label, at least 1."""
    if not (math.isfinite(seconds) and math.isfinite(cps)):
        raise ValueError(f"seconds and cps must be finite, got {seconds!r} and {cps!r}")
    room = math.floor(max(seconds, 0.0) * max(cps, 0.0) + _EPSILON)
    return max(1, room - display_length(label))


def _language(code: str) -> str:
    lang = primary_language(code)
    return _ALIASES.get(lang, lang)


def _words(text: str) -> list[tuple[int, str]]:
    """Runs of letters, marks and digits with their offsets; an inner apostrophe keeps "don't" whole."""
    words: list[tuple[int, str]] = []
    start = -1
    for i, ch in enumerate(text):
        inside = _is_word_char(ch) or (start >= 0 and ch in _APOSTROPHES and i + 1 < len(text) and _is_word_char(text[i + 1]))
        if inside and start < 0:
            start = i
        elif not inside and start >= 0:
            words.append((start, text[start:i]))
            start = -1
    if start >= 0:
        words.append((start, text[start:]))
    return words


def _is_word_char(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LMN"


@cache
def _number_pattern(decimal_comma: bool) -> re.Pattern[str]:
    group = f"[. ٬{_GROUP_SPACES}]" if decimal_comma else f"[,٬{_GROUP_SPACES}]"
    decimal = "[,٫]" if decimal_comma else "[.٫]"
    # Indian grouping (1,00,000) is the optional two-digit run.
    grouped = rf"\d{{1,3}}(?:{group}\d{{2}}(?={group}))*(?:{group}\d{{3}}(?!\d))+"
    return re.compile(rf"(?:{grouped}|\d+)(?:{decimal}\d+)?")


def _numbers(text: str, lang: str) -> dict[str, str]:
    """Each number written in digits, normalised ("1.000,5" -> "1000.5"), mapped to how it was written."""
    decimal_comma = lang in _DECIMAL_COMMA
    decimals = ",٫" if decimal_comma else ".٫"
    found: dict[str, str] = {}
    for match in _number_pattern(decimal_comma).finditer(unicodedata.normalize("NFC", text)):
        value = "".join(str(unicodedata.decimal(ch)) if ch.isdecimal() else "." if ch in decimals else "" for ch in match.group())
        found.setdefault(value, match.group())
    return found


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFC", text).casefold().replace("’", "'")
    return _ARABIC_MARKS.sub("", text)


def _matches(word: str, entries: Sequence[str]) -> bool:
    return any(
        word.endswith(e[1:]) if e.startswith("*") else word.startswith(e[:-1]) if e.endswith("*") else word == e for e in entries
    )


def _negations(text: str, lang: str) -> int:
    """How many negations ``text`` holds; an immediate repetition of the same word counts once."""
    entries = NEGATIONS.get(lang, ())
    if lang in _SUBSTRING_LANGUAGES:
        text = _fold(text)
        for word in _NOT_NEGATIONS.get(lang, ()):
            text = text.replace(word, " ")
        return sum(text.count(entry) for entry in entries)
    hits: list[str | None] = [w if _matches(w, entries) else None for w in (_fold(w) for _, w in _words(text))]
    counted = [w for i, w in enumerate(hits) if w is not None and (i == 0 or hits[i - 1] != w)]
    particles = _PARTICLES.get(lang, ())
    alone = sum(1 for w in counted if _matches(w, particles))
    return max(alone, len(counted) - alone)


def _dropped_terms(original: str, shorter: str, terms: Sequence[str]) -> list[str]:
    source, target = _fold(original), _fold(shorter)
    return [term for term in dict.fromkeys(terms) if term.strip() and _fold(term) in source and _fold(term) not in target]


def _dropped_names(original: str, shorter: str, lang: str, terms: Sequence[str]) -> list[str]:
    """Names of ``original`` missing from ``shorter``; glossary terms are left to the term rule."""
    present = {_name_form(word) for _, word in _words(shorter)}
    glossary = {_fold(term) for term in terms}
    return [name for name in _names(original, lang) if name not in present and _fold(name) not in glossary]


def _names(text: str, lang: str) -> list[str]:
    """Capitalised words not at a sentence or dialogue-line start, in order of first appearance."""
    if lang in _NOUNS_CAPITALISED or not any(ch.islower() for ch in text):
        return []
    words = _words(text)
    starts = _first_words(text, lang, [pos for pos, _ in words])
    names = [_name_form(w) for pos, w in words if pos not in starts]
    return list(dict.fromkeys(name for name in names if name and name != "I"))


def _name_form(word: str) -> str:
    """The capitalised core of a word: "l'Europe" -> "Europe", "John's" -> "John", "O'Brien" stays; else ""."""
    parts = list(re.finditer(r"[^'’]+", word))
    while parts and not parts[0].group()[0].isupper():
        parts.pop(0)
    while parts and not parts[-1].group()[0].isupper():
        parts.pop()
    return word[parts[0].start() : parts[-1].end()] if parts else ""


def _first_words(text: str, lang: str, positions: list[int]) -> set[int]:
    """Offsets of the first word of each sentence and of each line that opens with a dialogue dash."""
    openings = [span.start for span in split(text, lang=lang, next_word="any", abbreviations=ABBREVIATIONS)]
    offset = 0
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith(_DASHES):
            openings.append(offset)
        offset += len(line)
    return {next((pos for pos in positions if pos >= opening), -1) for opening in openings}
