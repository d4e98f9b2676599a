"""Apertium's installed modes as routes between the API's languages.

Apertium installs one "mode" (a shell pipeline) per translation direction
and names it after Apertium's language codes (``eng-spa``, ``por-cat``,
``eng-hbs_HR``). This module maps those names to the API's ISO 639-1
codes and regional variants, builds a graph of the directions the modes
serve and picks, for every pair, the route through the fewest modes,
chaining them through pivot languages where no direct pair is installed.

See docs/translation.md for the language mapping and the pivot rule.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from engines.errors import UnsupportedLanguage

#: The API's primary language codes.
_API_CODES = (
    "af sq ar hy az bn bg my ca zh hr cs da nl en et fi fr ka de el he hi hu is id it "
    "ja ko lv lt ms no fa pl pt ro ru sr sk sl es sw sv tl th tr uk vi"
)
API_LANGUAGES: frozenset[str] = frozenset(_API_CODES.split())

#: The API's regional variants, by primary code.
VARIANTS: dict[str, tuple[str, ...]] = {
    "en": ("en-US", "en-GB"),
    "pt": ("pt-BR", "pt-PT"),
    "zh": ("zh-CN", "zh-TW"),
    "fr": ("fr-CA",),
    "es": ("es-MX",),
    "nl": ("nl-BE",),
}

#: Languages outside the API set that still carry good pairs; they may appear
#: in the middle of a route but are never offered as a source or target.
PIVOT_ONLY: frozenset[str] = frozenset({"gl", "nn"})

# Apertium names languages with ISO 639-3 codes (newer pairs) or ISO 639-1
# codes (older pairs). Serbo-Croatian (hbs) analyses both Croatian and
# Serbian in Latin script, so it serves both as a source.
_APERTIUM_CODES: dict[str, tuple[str, ...]] = {
    "afr": ("af",), "sqi": ("sq",), "ara": ("ar",), "hye": ("hy",), "aze": ("az",), "ben": ("bn",),
    "bul": ("bg",), "mya": ("my",), "cat": ("ca",), "zho": ("zh",), "ces": ("cs",), "dan": ("da",),
    "nld": ("nl",), "eng": ("en",), "est": ("et",), "fin": ("fi",), "fra": ("fr",), "kat": ("ka",),
    "deu": ("de",), "ell": ("el",), "heb": ("he",), "hin": ("hi",), "hun": ("hu",), "isl": ("is",),
    "ind": ("id",), "ita": ("it",), "jpn": ("ja",), "kor": ("ko",), "lav": ("lv",), "lit": ("lt",),
    "zlm": ("ms",), "msa": ("ms",), "nob": ("no",), "nor": ("no",), "fas": ("fa",), "pes": ("fa",),
    "pol": ("pl",), "por": ("pt",), "ron": ("ro",), "rus": ("ru",), "srp": ("sr",), "hrv": ("hr",),
    "slk": ("sk",), "slv": ("sl",), "spa": ("es",), "swa": ("sw",), "swe": ("sv",), "tgl": ("tl",),
    "tha": ("th",), "tur": ("tr",), "ukr": ("uk",), "vie": ("vi",), "glg": ("gl",), "nno": ("nn",),
    "hbs": ("hr", "sr"), "sh": ("hr", "sr"), "nb": ("no",),
}  # fmt: skip

# Mode suffixes that select a language we serve: a regional variant of the
# target, or one standard of a pluricentric code (hbs_HR is Croatian).
_SUFFIX_TARGETS: dict[tuple[str, str], str] = {
    ("en", "US"): "en-US",
    ("en", "GB"): "en-GB",
    ("pt", "BR"): "pt-BR",
    ("pt", "PT"): "pt-PT",
    ("zh", "CN"): "zh-CN",
    ("zh", "TW"): "zh-TW",
    ("fr", "CA"): "fr-CA",
    ("es", "MX"): "es-MX",
    ("nl", "BE"): "nl-BE",
    ("hr", "HR"): "hr",
    ("sr", "SR"): "sr",
}

# Ties between equally short routes go to the pivot with the most mature
# pairs; Spanish is the hub of Apertium's Romance and English pairs.
_PIVOT_RANK: tuple[str, ...] = ("es", "en", "ca", "fr", "pt", "it", "sv", "da", "no", "is", "sl")

_MODE_NAME = re.compile(r"^([a-z]{2,3})-([a-z]{2,3})(?:_([A-Za-z0-9]+))?$")


@dataclass(frozen=True)
class ModeRef:
    """One installed mode and how specifically it matches its target.

    ``specific`` modes (``eng-hbs_HR`` for Croatian) win over a generic one
    (``eng-hbs``) that can serve the same target.
    """

    name: str
    specific: bool


@dataclass(frozen=True)
class Route:
    """The modes to run, in order, and the language codes they pass through."""

    modes: tuple[str, ...]
    hops: tuple[str, ...]


def api_codes(apertium_code: str) -> tuple[str, ...]:
    """API (or pivot-only) codes an Apertium language code stands for."""
    if apertium_code in API_LANGUAGES or apertium_code in PIVOT_ONLY:
        return (apertium_code,)
    return _APERTIUM_CODES.get(apertium_code, ())


def parse_mode(name: str) -> list[tuple[str, str, bool]]:
    """``(source, target, specific)`` triples a mode name serves; [] if none.

    ``target`` may be a regional variant (``pt-BR``). Suffixes we cannot place
    (``_valencia``, ``_iec2017``, ``_BS``) make the mode unusable here, as
    do modes that are not language pairs (``Cyrl-Latn``, ``eco-es-fr``).
    """
    match = _MODE_NAME.match(name)
    if not match:
        return []
    src, tgt, suffix = match.groups()
    sources = api_codes(src)
    if suffix is None:
        targets = [(code, False) for code in api_codes(tgt)]
    else:
        placed = {_SUFFIX_TARGETS[(code, suffix)] for code in api_codes(tgt) if (code, suffix) in _SUFFIX_TARGETS}
        targets = [(code, True) for code in sorted(placed)]
    return [(s, t, specific) for s in sources for t, specific in targets if s != t.split("-")[0]]


class ModeGraph:
    """Installed modes as a graph over language codes, with route search."""

    def __init__(self, mode_names: Iterable[str], max_hops: int = 3) -> None:
        self.max_hops = max_hops
        self.edges: dict[tuple[str, str], ModeRef] = {}
        self.variant_edges: dict[tuple[str, str], ModeRef] = {}
        for name in sorted(mode_names):
            for src, tgt, specific in parse_mode(name):
                table = self.variant_edges if "-" in tgt else self.edges
                current = table.get((src, tgt))
                if current is None or (specific and not current.specific):
                    table[(src, tgt)] = ModeRef(name, specific)
        self.routes = self._all_routes()

    def _neighbours(self, node: str) -> list[str]:
        return sorted(t for (s, t) in self.edges if s == node)

    def _all_routes(self) -> dict[tuple[str, str], tuple[str, ...]]:
        """Best path between every pair of API languages within ``max_hops``."""
        best: dict[tuple[str, str], tuple[str, ...]] = {}
        sources = sorted({s for s, _ in self.edges} & API_LANGUAGES)
        for source in sources:
            for path in self._paths_from(source):
                target = path[-1]
                if target not in API_LANGUAGES:
                    continue
                key = (source, target)
                if key not in best or _path_key(path) < _path_key(best[key]):
                    best[key] = path
        return best

    def _paths_from(self, source: str) -> Iterable[tuple[str, ...]]:
        """Every simple path from ``source`` of 1 to ``max_hops`` hops."""
        frontier: list[tuple[str, ...]] = [(source,)]
        for _ in range(self.max_hops):
            extended = [(*path, nxt) for path in frontier for nxt in self._neighbours(path[-1]) if nxt not in path]
            yield from extended
            frontier = extended

    def pairs(self) -> frozenset[tuple[str, str]]:
        """Reachable (source, target) pairs, target variants included."""
        result = set(self.routes)
        for source, target in self.routes:
            result.update((source, variant) for variant in VARIANTS.get(target, ()))
        return frozenset(result)

    def route(self, source: str, target: str) -> Route:
        """The modes for ``source`` → ``target`` (target may be a variant)."""
        primary = target.split("-")[0]
        path = self.routes.get((source, primary))
        if path is None or (target != primary and target not in VARIANTS.get(primary, ())):
            raise UnsupportedLanguage(f"apertium cannot translate {source} to {target}", source=source, target=target)
        modes = [self.edges[hop].name for hop in itertools.pairwise(path)]
        variant = self.variant_edges.get((path[-2], target))
        if variant is not None:
            modes[-1] = variant.name
        return Route(tuple(modes), (*path[:-1], target))


def _path_key(path: tuple[str, ...]) -> tuple[int, int, tuple[int, ...]]:
    """Order routes: fewer hops, fewer non-API pivots, then preferred pivots."""
    middle = path[1:-1]
    outside = sum(1 for node in middle if node not in API_LANGUAGES)
    ranks = tuple(_PIVOT_RANK.index(n) if n in _PIVOT_RANK else len(_PIVOT_RANK) for n in middle)
    return (len(path), outside, ranks)
