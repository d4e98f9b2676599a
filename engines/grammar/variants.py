"""Regional variants of a grammar language: which one a text is written in, and the default.

Brazilian and European Portuguese, American and British English have rules and
dictionaries of their own (LanguageTool's ``pt-BR``/``pt-PT`` and ``en-US``/``en-GB``
rule sets, Hunspell's ``pt_BR``/``pt_PT``, Harper's dialects): a rule of one
variant fires on correct text of the other (LanguageTool's European
``POSSESSIVE_WITHOUT_ARTICLE`` on "Meu irmão chegou"). A request that names a
variant is checked in it; one that names only the language (or whose language
was detected) is checked in the variant the text's spelling markers point to
(``configs/grammar/variants.yaml``: econômico/económico, ônibus/autocarro,
color/colour, -ize/-ise...), and where they point nowhere clearly, in the
language's default variant, the one with the most speakers (``pt-BR``,
``en-US``). Languages not listed there are checked as given.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable
from pathlib import Path

import regex as re
import yaml

PATH = Path(__file__).resolve().parents[2] / "configs" / "grammar" / "variants.yaml"
#: Weight of a marker, and of a weak one (a word correct in the other variant too, that leans to this one).
STRONG = 2
WEAK = 1
#: Markers are looked for in the first this many characters (enough to tell; a 50,000-character text costs no more).
SCAN_CHARS = 20_000


@dataclasses.dataclass(frozen=True)
class Markers:
    """One language's variants, its default and the markers of each variant."""

    language: str
    default: str
    variants: tuple[str, ...]
    words: dict[str, dict[str, int]]  # variant → lower-case word or phrase → weight
    patterns: dict[str, tuple[re.Pattern[str], ...]]

    @functools.cached_property
    def _finders(self) -> dict[str, re.Pattern[str]]:
        out = {}
        for variant, weights in self.words.items():
            alternatives = "|".join(re.escape(w) for w in sorted(weights, key=len, reverse=True))
            out[variant] = re.compile(rf"(?<![\p{{L}}\p{{M}}'’-])(?:{alternatives})(?![\p{{L}}\p{{M}}'’-])", re.IGNORECASE)
        return out

    def scores(self, text: str) -> dict[str, int]:
        """Variant → the weight of the distinct markers ``text`` holds."""
        out = {}
        for variant in self.variants:
            weights = self.words.get(variant, {})
            finder = self._finders.get(variant)
            found = {m.group().lower() for m in finder.finditer(text)} if finder else set()
            score = sum(weights.get(" ".join(word.split()), STRONG) for word in found)
            matched = {m.group().lower() for p in self.patterns.get(variant, ()) for m in p.finditer(text)}
            out[variant] = score + STRONG * len(matched)
        return out


@functools.cache
def _data() -> dict:
    return yaml.safe_load(PATH.read_text(encoding="utf-8")) or {}


@functools.cache
def table() -> dict[str, Markers]:
    """Language → its variants' markers (``configs/grammar/variants.yaml``)."""
    data = _data()
    out = {}
    for language, spec in (data.get("languages") or {}).items():
        variants = tuple(spec["variants"])
        words: dict[str, dict[str, int]] = {v: {} for v in variants}
        for pair in spec.get("pairs") or ():
            for variant, word in zip(variants, pair, strict=True):
                words[variant][word.lower()] = STRONG
        for kind, weight in (("only", STRONG), ("weak", WEAK)):
            for variant, listed in (spec.get(kind) or {}).items():
                words[variant].update({w.lower(): weight for w in listed})
        patterns = {v: tuple(re.compile(p, re.IGNORECASE) for p in listed) for v, listed in (spec.get("patterns") or {}).items()}
        out[str(language)] = Markers(str(language), spec["default"], variants, words, patterns)
    return out


def thresholds() -> tuple[int, float]:
    """(the least score, the least ratio to the other variant's score) that decide a variant."""
    data = _data()
    return int(data.get("min_score", STRONG)), float(data.get("ratio", 2))


def default(lang: str) -> str:
    """The variant a bare language code stands for (``pt`` → ``pt-BR``), or ``lang`` itself."""
    markers = table().get(lang)
    return markers.default if markers else lang


def detect(lang: str, text: str) -> str | None:
    """The variant of ``lang`` that ``text`` is reliably written in, or None (no markers, or mixed ones)."""
    markers = table().get(lang)
    if markers is None:
        return None
    least, ratio = thresholds()
    scores = markers.scores(text[:SCAN_CHARS])
    best = max(markers.variants, key=lambda v: scores[v])
    others = max((s for v, s in scores.items() if v != best), default=0)
    return best if scores[best] >= least and scores[best] >= ratio * others else None


def resolve(lang: str, text: str, served: Iterable[str] | None = None) -> str:
    """The code a text in ``lang`` is checked in: a variant as given; a language with variants, the variant
    ``text`` is written in, else its default; any other code as given. ``served``: the codes the engines
    serve (a variant they do not serve is not chosen)."""
    if lang not in table():
        return lang
    choice = detect(lang, text) or default(lang)
    return choice if served is None or choice in set(served) else lang


def has_variants(lang: str) -> bool:
    return lang in table()
