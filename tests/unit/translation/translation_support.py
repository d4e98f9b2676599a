"""Generators and test engines shared by the translation tests.

The generated strings record which protected tokens they contain, so the
tests check preservation against what was put in, not against the
recogniser under test.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from engines.errors import EngineFailure
from engines.translation.base import (
    TranslationRequest,
    TranslationResult,
    TranslatorEngine,
)


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


VOCABULARY: dict[str, tuple[str, ...]] = {
    "en": _words(
        "the red car is fast I have three dogs and two cats where nearest train station press button "
        "to start game your inventory full drop an item ancient sword glows with strange blue light "
        "we will meet king at castle tomorrow morning welcome back traveler village needs help "
        "collect apples bring them old farmer gold buy armor children play in garden friends"
    ),
    "es": _words(
        "el coche rojo es muy rápido tengo tres perros y dos gatos dónde está la estación de tren "
        "pulsa botón para empezar partida tu inventario lleno espada antigua brilla con una luz azul "
        "mañana veremos al rey en castillo los niños juegan jardín amigos oro comprar armadura"
    ),
    "sv": _words(
        "den röda bilen är snabb jag har tre hundar och två katter var ligger närmaste tågstation "
        "tryck på knappen för att starta spelet barnen leker i trädgården med sina vänner vädret "
        "vackert idag han sprang till dörren"
    ),
    "nl": _words(
        "de rode auto is snel ik heb drie honden en twee katten waar het dichtstbijzijnde "
        "treinstation druk op knop om spel te starten kinderen spelen in tuin met hun vrienden weer "
        "vandaag mooi"
    ),
}

PLACEHOLDERS = ("{0}", "{1}", "{name}", "{player_name}", "{{count}}", "{{item}}", "%s", "%d", "%1$s", "%2$d", "%.2f", "%%")
#: Non-positional printf fields: filled left to right, so order is meaning.
ORDERED = ("%s", "%d", "%.2f", "%%")
STANDALONE_TAGS = ("<br/>", "<sprite=3>")
PAIRED_TAGS = (
    ("<b>", "</b>"),
    ("<i>", "</i>"),
    ("<color=#f00>", "</color>"),
    ("<size=20>", "</size>"),
    ("[b]", "[/b]"),
    ("[color=red]", "[/color]"),
)
BREAKS = ("\n", "\\n")
EMOJI = ("😀", "👍🏽", "🇫🇷", "👨\u200d👩\u200d👧", "❤\ufe0f", "1\ufe0f\u20e3", "🎮")
PUNCTUATION = (",", ".", "!", "?", ":")

#: Every token the generators insert.
TOKENS: tuple[str, ...] = PLACEHOLDERS + STANDALONE_TAGS + tuple(t for pair in PAIRED_TAGS for t in pair) + BREAKS + EMOJI

#: Property tests must not write a .hypothesis folder into the checkout.
FAST = settings(
    database=None,
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
#: Each example is one apertium run per hop (about half a second on a busy
#: machine), so examples are few and each carries a large batch of strings.
APERTIUM_BUDGET = settings(FAST, max_examples=5)


_OPEN = "open"
_CLOSE = "close"


def _table(words: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """Everything a generated string is made of, as (kind, text)."""
    rows = [("text", w) for w in words]
    rows += [("text", t) for t in PLACEHOLDERS + STANDALONE_TAGS + BREAKS + EMOJI + PUNCTUATION]
    rows += [(_OPEN, str(i)) for i in range(len(PAIRED_TAGS))] * 2
    rows += [(_CLOSE, "")] * 4
    return tuple(rows)


def build_text(codes: Sequence[int], words: Sequence[str]) -> str:
    """Turn a list of integers into a string of words and markup.

    Each integer picks a table row and whether the piece is glued to the
    previous one; tag pairs open and close like a stack, so the markup is
    always well nested. Drawing plain integers keeps generation cheap, and
    Hypothesis shrinks a failure to the fewest, smallest codes.
    """
    table = _table(words)
    out = ""
    stack: list[int] = []
    for code in codes:
        kind, text = table[code % len(table)]
        if kind == _OPEN:
            stack.append(int(text))
            text = PAIRED_TAGS[int(text)][0]
        elif kind == _CLOSE:
            if not stack:
                continue
            text = PAIRED_TAGS[stack.pop()][1]
        glue = (code // len(table)) % 8 == 0
        out = text if not out else out + ("" if glue else " ") + text
    for pair in reversed(stack):
        out += PAIRED_TAGS[pair][1]
    return out


def markup_texts(lang: str = "en") -> st.SearchStrategy[str]:
    """Strings mixing ``lang`` words with placeholders, tags, line breaks and emoji."""
    words = VOCABULARY[lang]
    return st.lists(st.integers(0, 1 << 16), min_size=1, max_size=14).map(lambda codes: build_text(codes, words))


_TOKEN_SCAN = re.compile("|".join(re.escape(t) for t in sorted(TOKENS, key=len, reverse=True)))


def token_counts(text: str) -> Counter[str]:
    """Occurrences of each generator token, scanning left to right.

    A scan, not substring counts: in ``%%s`` the field is ``%%``, not ``%s``.
    """
    return Counter(_TOKEN_SCAN.findall(text))


def line_count(text: str) -> int:
    return text.count("\n") + 1


def ordered_fields(text: str) -> list[str]:
    """The non-positional printf fields of ``text``, left to right."""
    return re.findall("|".join(re.escape(t) for t in sorted(ORDERED, key=len, reverse=True)), text)


def paired_tags_nest(text: str) -> bool:
    """True when the generator's tag pairs open and close properly in ``text``."""
    closers = {closing: opening for opening, closing in PAIRED_TAGS}
    tokens = sorted({t for pair in PAIRED_TAGS for t in pair}, key=len, reverse=True)
    stack: list[str] = []
    for tag in re.findall("|".join(map(re.escape, tokens)), text):
        if tag in closers:
            if not stack or stack.pop() != closers[tag]:
                return False
        else:
            stack.append(tag)
    return not stack


def assert_preserved(source: str, output: str) -> None:
    """Every inserted token survives exactly, in an order that still works."""
    assert token_counts(output) == token_counts(source), (source, output)
    assert line_count(output) == line_count(source), (source, output)
    assert ordered_fields(output) == ordered_fields(source), (source, output)
    assert paired_tags_nest(output), (source, output)


# --- engines for the repair and fallback paths ---------------------------------

_SENTINEL = re.compile(r"<x\d+/>")


class WordEngine(TranslatorEngine):
    """Reverses every word and leaves sentinels alone: a translation in shape only."""

    name = "words"

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        self.calls: list[tuple[str, ...]] = []

    def start(self) -> None:
        pass

    def pairs(self) -> frozenset[tuple[str, str]]:
        return frozenset({("en", "es"), ("en", "pt"), ("en", "pt-BR")})

    def translate(self, request: TranslationRequest) -> TranslationResult:
        self.calls.append(request.texts)
        texts = tuple(self.transform(t) for t in request.texts)
        return TranslationResult(texts, engine=self.name, route=(request.source_lang, request.target_lang))

    def transform(self, text: str) -> str:
        pieces = re.split(r"(<x\d+/>)", text)
        return "".join(p if _SENTINEL.fullmatch(p) else re.sub(r"\w+", lambda m: m.group()[::-1], p) for p in pieces)


class ManglingEngine(WordEngine):
    """Translates like WordEngine, then damages sentinels the way real engines do.

    Each sentinel is independently kept, dropped, spelled differently,
    duplicated or moved to another spot, driven by a seeded generator so a
    failing example replays exactly. It also invents a line break now and then.
    """

    name = "mangler"

    def __init__(self, seed: int, damage: float = 0.4) -> None:
        super().__init__()
        self.random = random.Random(seed)
        self.damage = damage

    def transform(self, text: str) -> str:
        words = super().transform(text)
        return _SENTINEL.sub(self._damage, words) + (" \n" if self.random.random() < 0.1 else "")

    def _damage(self, match: re.Match[str]) -> str:
        token = match.group()
        if self.random.random() >= self.damage:
            return token
        number = token[2:-2]
        return self.random.choice(
            [
                "",
                f"< x{number} />",
                f"<X{number}>",
                f"&lt;x{number}/&gt;",
                f"<x{number}></x{number}>",
                token + " " + token,
                " ",
            ]
        )


class DroppingEngine(WordEngine):
    """Loses every sentinel: no repair can place them all with confidence."""

    name = "dropper"

    def transform(self, text: str) -> str:
        return _SENTINEL.sub("", super().transform(text))


class FailingEngine(WordEngine):
    """Always fails the way a crashed backend does."""

    name = "failing"

    def translate(self, request: TranslationRequest) -> TranslationResult:
        self.calls.append(request.texts)
        raise EngineFailure("backend crashed")


@dataclass
class RecordingEngine(TranslatorEngine):
    """Passes requests to a real engine and keeps what it answered."""

    inner: TranslatorEngine
    outputs: list[tuple[tuple[str, ...], tuple[str, ...]]]

    def __post_init__(self) -> None:
        self.name = self.inner.name  # type: ignore[misc]

    def start(self) -> None:
        self.inner.start()

    def pairs(self) -> frozenset[tuple[str, str]]:
        return self.inner.pairs()

    def translate(self, request: TranslationRequest) -> TranslationResult:
        result = self.inner.translate(request)
        self.outputs.append((request.texts, result.texts))
        return replace(result)
