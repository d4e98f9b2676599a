"""Where a two-line subtitle may break, by language.

Subtitle style guides (Netflix Timed Text Style Guide, BBC Subtitle Guidelines) break a line after
punctuation and before conjunctions and prepositions, and never between words that belong together:
an article and its noun, a preposition and its object, a subject pronoun or a negation and its verb,
a first and a last name. :func:`break_cost` scores one break point from the two tokens around it,
with the function words of ``breaks/<lang>.txt`` (the project's own lists; rules, format and
languages in ``docs/line-breaks.md``) and rules every language shares:

* punctuation wins: a break after a full stop is best, after a clause mark good, and a word followed
  by punctuation is never held to the next one;
* a name stays whole: two capitalised words (``John Smith``), an initial or a listed title and a
  name (``J. Smith``, ``Dr. Smith``);
* a token ending in an apostrophe (``l'``, ``dell'``) is elided and binds to the next word.

Tokens are words of space-using scripts, or the units ``text.split_units`` cuts no-space scripts
into (one character with its marks): a one-character entry of the Chinese and Japanese lists
matches a unit, a longer entry a whole token, and no line breaks between two units inside it.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from pathlib import Path

from pipelines.subtitles.profanity import primary_language
from pipelines.subtitles.text import ends_clause, ends_sentence, is_no_space

#: Ending a line between words that belong together.
NO_BREAK = 1.0
#: Ending a line with a conjunction, which belongs at the start of the next one.
DANGLING = 0.5
#: Starting a line with a conjunction or preposition, or ending one after a clause mark or a phrase-final word.
GOOD_BREAK = -0.5
#: Ending a line with its sentence.
SENTENCE_BREAK = -1.0

ROLES = ("no_break_after", "no_break_before", "break_before", "break_after")
#: Section of a list file -> the roles its entries take: one section per role, and two shorthands.
SECTIONS: dict[str, tuple[str, ...]] = {
    "no_break_after": ("no_break_after",),
    "no_break_before": ("no_break_before",),
    "break_before": ("break_before",),
    "break_after": ("break_after",),
    "phrase_start": ("no_break_after", "break_before"),
    "phrase_end": ("no_break_before", "break_after"),
}
_LISTS = Path(__file__).with_name("breaks")
_APOSTROPHES = "'’ʼ"
#: Case and spelling variants matched alike: typographic apostrophes, ё, Arabic hamza seats,
#: short vowels and tatweel.
_FOLD = str.maketrans(
    {"’": "'", "ʼ": "'", "ё": "е", "أ": "ا", "إ": "ا", "آ": "ا", "ٱ": "ا", "\u0640": None, "\u0670": None}
    | {chr(code): None for code in range(0x064B, 0x0660)}
)


@dataclass(frozen=True)
class BreakWords:
    """One language's list entries by role, folded (:func:`fold`)."""

    no_break_after: frozenset[str] = frozenset()
    no_break_before: frozenset[str] = frozenset()
    break_before: frozenset[str] = frozenset()
    break_after: frozenset[str] = frozenset()
    #: Adjacent unit pairs inside a multi-unit no-space entry (``でした`` -> ``でし``, ``した``).
    inner: frozenset[str] = frozenset()

    def listed(self, key: str) -> bool:
        return any(key in roles for roles in (self.no_break_after, self.no_break_before, self.break_before, self.break_after))


_NONE = BreakWords()


def fold(word: str) -> str:
    """The form words are compared in: NFC, lower case, spelling variants merged."""
    return unicodedata.normalize("NFC", word).lower().translate(_FOLD).replace("i\u0307", "i")


@cache
def supported_languages() -> tuple[str, ...]:
    """Language codes that have a list, sorted."""
    return tuple(sorted(path.stem for path in _LISTS.glob("*.txt")))


def read_sections(language: str) -> dict[str, list[str]]:
    """The entries of ``breaks/<language>.txt`` by section, as written, in file order."""
    path = _LISTS / f"{language}.txt"
    sections: dict[str, list[str]] = {}
    current: str | None = None
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1]
            if current not in SECTIONS:
                raise ValueError(f"{path.name}:{number}: unknown section [{current}]")
            sections.setdefault(current, [])
        elif line and current is None:
            raise ValueError(f"{path.name}:{number}: entries before the first section")
        elif line and current is not None:
            sections[current].extend(line.split())
    return sections


def break_words(language: str | None) -> BreakWords:
    """The lists of ``language`` (``pt-BR`` -> ``pt``); empty for None or a language without one."""
    code = primary_language(language) if language else ""
    return _load(code) if code in supported_languages() else _NONE


@cache
def _load(language: str) -> BreakWords:
    roles: dict[str, set[str]] = {role: set() for role in ROLES}
    inner: set[str] = set()
    for section, entries in read_sections(language).items():
        for entry in map(fold, entries):
            for role in SECTIONS[section]:
                roles[role].add(entry)
            if len(entry) > 1 and all(is_no_space(ch) for ch in entry):
                inner.update(a + b for a, b in pairwise(entry))
    return BreakWords(**{role: frozenset(words) for role, words in roles.items()}, inner=frozenset(inner))


def break_cost(before: str, after: str, language: str | None) -> float:
    """The cost of ending a line after token ``before`` when the next line starts with ``after``.

    0.0 is neutral, positive bad, negative good: the worst fault found plus the best merit
    (values :data:`NO_BREAK`, :data:`DANGLING`, :data:`GOOD_BREAK`, :data:`SENTENCE_BREAK`).
    Without a list for ``language`` only the rules every language shares apply.
    """
    words = break_words(language)
    lead, core, tail = _parts(before)
    next_core = _parts(after)[1]
    if tail:
        return _after_punctuation(before, lead, core, tail, next_core, words)
    ends, starts = _end_keys(fold(core), words), _start_keys(fold(next_core))
    fault = max(
        NO_BREAK if ends & words.no_break_after else DANGLING if ends & words.break_before else 0.0,
        NO_BREAK if starts & words.no_break_before or _inside_entry(core, next_core, words) else 0.0,
        NO_BREAK if _names(core, next_core, words) else 0.0,
    )
    merit = GOOD_BREAK if starts & words.break_before or ends & words.break_after else 0.0
    return fault + merit


def _after_punctuation(before: str, lead: str, core: str, tail: str, next_core: str, words: BreakWords) -> float:
    if core and len(tail) == 1 and tail in _APOSTROPHES and not any(quote in lead for quote in "'‘"):
        return NO_BREAK  # elided: l', dell', students'
    if tail[0] == "." and (fold(core) + "." in words.no_break_after or _initial(core, next_core)):
        return NO_BREAK  # a title or an initial before a name
    if ends_sentence(before):
        return SENTENCE_BREAK
    return GOOD_BREAK if ends_clause(before) else 0.0


def _parts(token: str) -> tuple[str, str, str]:
    """``token`` as (leading punctuation, word, trailing punctuation); inner apostrophes stay in the word."""
    letters = [k for k, ch in enumerate(token) if unicodedata.category(ch)[0] in "LNM"]
    if not letters:
        return "", "", token
    return token[: letters[0]], token[letters[0] : letters[-1] + 1], token[letters[-1] + 1 :]


def _end_keys(key: str, words: BreakWords) -> set[str]:
    """A line's last word; the word an elided head is joined to (``qu'il`` -> ``il``) when the head is
    listed; the last character of a no-space word (``東京で`` -> ``で``)."""
    keys = {key, key[-1:]} if key and is_no_space(key[-1]) else {key}
    cut = key.rfind("'", 1, len(key) - 1)
    return keys | {key[cut + 1 :]} if cut > 0 and words.listed(key[: cut + 1]) else keys


def _start_keys(key: str) -> set[str]:
    """A line's first word; its elided head (``qu'il`` -> ``qu'``); the first character of a no-space word."""
    keys = {key, key[:1]} if key and is_no_space(key[0]) else {key}
    cut = key.find("'", 1, len(key) - 1)
    return keys | {key[: cut + 1]} if cut > 0 else keys


def _inside_entry(core: str, next_core: str, words: BreakWords) -> bool:
    return bool(core and next_core) and fold(core[-1] + next_core[0]) in words.inner


def _capitalised(word: str) -> bool:
    return len(word) > 1 and word[0].isupper() and any(ch.islower() for ch in word[1:])


def _names(core: str, next_core: str, words: BreakWords) -> bool:
    """Two capitalised words that are not listed function words: most likely one name."""
    listed = words.listed(fold(core)) or words.listed(fold(next_core))
    return _capitalised(core) and _capitalised(next_core) and not listed


def _initial(core: str, next_core: str) -> bool:
    return len(core) == 1 and core.isupper() and _capitalised(next_core)
