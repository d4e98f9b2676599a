"""Apertium translator engine for the CPU profile.

Apertium is a rule-based system installed as Debian packages: one "mode"
(a shell pipeline) per translation direction, listed by ``apertium -l``.
This engine maps mode names to the API's ISO 639-1 codes, chains modes
through pivot languages where no direct pair is installed, and sends every
segment of a hop through a single ``apertium`` process, because starting the
pipeline (about 0.3 s) costs far more than translating a UI string.

Batching uses Apertium's null-flush mode (``-z``): each chunk ends with a NUL
byte, every program in the pipeline resets its state and echoes the NUL, so
chunks never influence each other and the output splits back exactly. The
input is written in Apertium's stream format (``-f none``) so special
characters are escaped by us and restored by us, and apertium's
unknown-word markers (``*``, ``#``, ``@``) can be told apart from the same
characters in the user's text (those travel inside superblanks).

See docs/translation.md for the language mapping and the pivot rule.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import re
import signal
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from deployments.engines.errors import (
    EngineFailure,
    EngineTimeout,
    EngineUnavailable,
    UnsupportedLanguage,
)
from deployments.engines.translation.base import (
    TranslationRequest,
    TranslationResult,
    TranslatorEngine,
)

log = logging.getLogger(__name__)

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
    "afr": ("af",),
    "sqi": ("sq",),
    "ara": ("ar",),
    "hye": ("hy",),
    "aze": ("az",),
    "ben": ("bn",),
    "bul": ("bg",),
    "mya": ("my",),
    "cat": ("ca",),
    "zho": ("zh",),
    "ces": ("cs",),
    "dan": ("da",),
    "nld": ("nl",),
    "eng": ("en",),
    "est": ("et",),
    "fin": ("fi",),
    "fra": ("fr",),
    "kat": ("ka",),
    "deu": ("de",),
    "ell": ("el",),
    "heb": ("he",),
    "hin": ("hi",),
    "hun": ("hu",),
    "isl": ("is",),
    "ind": ("id",),
    "ita": ("it",),
    "jpn": ("ja",),
    "kor": ("ko",),
    "lav": ("lv",),
    "lit": ("lt",),
    "zlm": ("ms",),
    "msa": ("ms",),
    "nob": ("no",),
    "nor": ("no",),
    "fas": ("fa",),
    "pes": ("fa",),
    "pol": ("pl",),
    "por": ("pt",),
    "ron": ("ro",),
    "rus": ("ru",),
    "srp": ("sr",),
    "hrv": ("hr",),
    "slk": ("sk",),
    "slv": ("sl",),
    "spa": ("es",),
    "swa": ("sw",),
    "swe": ("sv",),
    "tgl": ("tl",),
    "tha": ("th",),
    "tur": ("tr",),
    "ukr": ("uk",),
    "vie": ("vi",),
    "glg": ("gl",),
    "nno": ("nn",),
    "hbs": ("hr", "sr"),
    "sh": ("hr", "sr"),
    "nb": ("no",),
}

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

#: Installed modes left out by default: apertium-rus-ukr 0.2.1's tagger
#: model aborts apertium-tagger (an assertion in perceptron_spec.h) on about
#: one sentence in four, even when run by hand, and takes the rest of a
#: batch with it. Advertising ru<->uk would promise what fails.
BROKEN_MODES: frozenset[str] = frozenset({"rus-ukr", "ukr-rus"})

_MODE_NAME = re.compile(r"^([a-z]{2,3})-([a-z]{2,3})(?:_([A-Za-z0-9]+))?$")
_CYRILLIC = re.compile(r"[\u0400-\u04FF]")
_TRANSLITERATION_MODE = "Cyrl-Latn"


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


# --- Apertium stream format -------------------------------------------------

# Characters with a meaning in the stream format, escaped as apertium-destxt does.
_STREAM_SPECIAL = frozenset("\\[]^$/<>{}")
# Characters apertium uses as markers (unknown word, generation error,
# missing bilingual entry) or post-generation triggers; the user's own copies
# travel inside superblanks so any unescaped one in the output is a marker.
_MARKERS = frozenset("*#@~")
_SUPERBLANK_SPACE = re.compile(r"\s{2,}|[^\S ]")
# Apertium keeps the blank of a word it drops ("I have" -> " tengo"),
# leaving double spaces the source never had.
_DOUBLE_SPACE = re.compile(r" {2,}")


def encode_stream(text: str) -> str:
    """Write ``text`` in Apertium stream format (what ``-f none`` expects)."""
    out: list[str] = []
    pos = 0
    for match in _SUPERBLANK_SPACE.finditer(text):
        out.append(_encode_plain(text[pos : match.start()]))
        out.append("[" + _escape(match.group()) + "]")
        pos = match.end()
    out.append(_encode_plain(text[pos:]))
    return "".join(out)


def _encode_plain(text: str) -> str:
    return "".join(f"[{ch}]" if ch in _MARKERS else f"\\{ch}" if ch in _STREAM_SPECIAL else ch for ch in text)


def _escape(text: str) -> str:
    return "".join(f"\\{ch}" if ch in _STREAM_SPECIAL else ch for ch in text)


def decode_stream(stream: str) -> str:
    """Turn pipeline output back into plain text, dropping apertium's markers."""
    out: list[str] = []
    in_blank = False
    i = 0
    while i < len(stream):
        ch = stream[i]
        if ch == "\\" and i + 1 < len(stream):
            out.append(stream[i + 1])
            i += 2
            continue
        if ch == "[" and not in_blank:
            in_blank = True
        elif ch == "]" and in_blank:
            in_blank = False
        elif in_blank or ch not in _MARKERS:
            out.append(ch)
        i += 1
    return "".join(out)


# Like apertium-destxt, every chunk ends in a period and an empty superblank:
# the tagger then sees a sentence end, and a final punctuation mark is not
# swallowed at the NUL.
_SENTENCE_END = ".[]"


def _frame(line: str) -> str:
    return encode_stream(line) + _SENTENCE_END + "\0"


def _unframe(piece: str) -> str | None:
    """The plain text of one output chunk; None when its framing is damaged.

    Only the framing ever writes an empty superblank, so exactly one ``[]``
    proves the chunk is complete and was not merged with its neighbour.
    """
    if piece.count("[]") != 1:
        return None
    cut = piece.rfind(_SENTENCE_END)
    if cut != -1:
        piece = piece[:cut] + piece[cut + len(_SENTENCE_END) :]
    return decode_stream(piece).strip()


# --- Chunking ------------------------------------------------------------------

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Chunk:
    """One line of one segment: its core goes to apertium, its edges do not.

    Lines are translated on their own so a translation never moves words
    from one line to another, and each line keeps its surrounding spaces.
    """

    lead: str
    core: str
    trail: str


def split_segment(text: str) -> tuple[list[Chunk], list[str]]:
    """A segment's chunks (one per line) and the line breaks between them."""
    lines = _LINE_BREAK.split(text)
    breaks = _LINE_BREAK.findall(text)
    chunks = []
    for line in lines:
        core = line.strip()
        start = line.find(core) if core else len(line)
        chunks.append(Chunk(line[:start], core, line[start + len(core) :]))
    return chunks, breaks


def join_segment(chunks: Sequence[Chunk], cores: Sequence[str], breaks: Sequence[str]) -> str:
    """Inverse of ``split_segment`` with translated cores."""
    lines = [c.lead + core.strip() + c.trail for c, core in zip(chunks, cores)]
    out = lines[0]
    for brk, line in zip(breaks, lines[1:]):
        out += brk + line
    return out


# --- The engine -----------------------------------------------------------------


class ApertiumEngine(TranslatorEngine):
    """Rule-based translation through the locally installed Apertium modes.

    Options:
        binary: the ``apertium`` launcher (default ``apertium`` on PATH).
        data_dir: Apertium data directory passed as ``-d`` (default: the
            launcher's own, ``/usr/share/apertium``).
        max_hops: longest route allowed, in modes (default 3).
        timeout_s: deadline of one apertium run (default 60).
        exclude_modes: installed modes never to use (default: the
            Russian-Ukrainian pair, whose packaged tagger aborts on about a
            quarter of sentences; ``[]`` turns it back on).
    """

    name = "apertium"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.binary: str = options.get("binary", "apertium")
        self.data_dir: str | None = options.get("data_dir")
        self.max_hops: int = int(options.get("max_hops", 3))
        self.timeout_s: float = float(options.get("timeout_s", 60.0))
        self.exclude_modes = frozenset(options.get("exclude_modes", BROKEN_MODES))
        self._graph: ModeGraph | None = None
        self._modes: frozenset[str] = frozenset()

    # -- lifecycle --

    def start(self) -> None:
        """Check the launcher runs and learn which modes are installed."""
        listing = self._call(["-l"], "", timeout=self.timeout_s)
        self._modes = frozenset(listing.split()) - self.exclude_modes
        self._graph = ModeGraph(self._modes, self.max_hops)
        log.info("apertium: %d modes, %d pairs", len(self._modes), len(self._graph.pairs()))

    def health(self) -> None:
        """Raise ``EngineUnavailable`` unless started and the launcher answers."""
        if self._graph is None:
            raise EngineUnavailable("apertium engine not started")
        try:
            self._call(["-l"], "", timeout=self.timeout_s)
        except EngineFailure as exc:
            raise EngineUnavailable(f"apertium launcher is broken: {exc}") from exc

    def pairs(self) -> frozenset[tuple[str, str]]:
        return self._graph.pairs() if self._graph else frozenset()

    def modes(self) -> frozenset[str]:
        """Names of the modes in use: what ``apertium -l`` lists, less the excluded."""
        return self._modes

    def describe(self) -> dict[str, Any]:
        return {"engine": self.name, "pairs": len(self.pairs()), "max_hops": self.max_hops}

    def route(self, source: str, target: str) -> Route:
        """The route ``translate`` would take (source variants map to primary)."""
        if self._graph is None:
            raise EngineUnavailable("apertium engine not started")
        return self._graph.route(source.split("-")[0], target)

    # -- translation --

    def translate(self, request: TranslationRequest) -> TranslationResult:
        route = self.route(request.source_lang, request.target_lang)
        split = [split_segment(text) for text in request.texts]
        cores = [chunk.core for chunks, _ in split for chunk in chunks]
        if route.hops[0] == "sr":
            cores = self._transliterate(cores)
        for mode in route.modes:
            cores = self.translate_lines(mode, cores)
        texts = []
        pos = 0
        for chunks, breaks in split:
            texts.append(join_segment(chunks, cores[pos : pos + len(chunks)], breaks))
            pos += len(chunks)
        return TranslationResult(tuple(texts), engine=self.name, route=route.hops)

    def _transliterate(self, cores: list[str]) -> list[str]:
        """Serbian in Cyrillic goes to Latin first: hbs analysers read Latin only."""
        if _TRANSLITERATION_MODE not in self._modes or not any(map(_CYRILLIC.search, cores)):
            return cores
        return self.translate_lines(_TRANSLITERATION_MODE, cores)

    def translate_lines(self, mode: str, lines: Sequence[str]) -> list[str]:
        """Run single-line texts through one mode, normally in one apertium process.

        Empty lines never reach apertium. Each output chunk must come back
        with its framing superblank; when a pipeline stage dies mid-batch (a
        few installed taggers abort on rare inputs) the chunk where framing
        broke is run alone and the rest as a new batch, so a bad line costs
        one extra process, not one process per line, and is then reported.
        """
        todo = [i for i, line in enumerate(lines) if line.strip()]
        out = list(lines)
        done: list[str] = []
        while len(done) < len(todo):
            rest = [lines[i] for i in todo[len(done) :]]
            good = self._run_chunks(mode, rest)
            done.extend(good)
            if len(good) < len(rest):
                alone = self._run_chunks(mode, rest[len(good) : len(good) + 1])
                if not alone:
                    raise EngineFailure(f"apertium {mode} produced no output for {rest[len(good)]!r}")
                done.extend(alone)
        for i, text in zip(todo, done):
            out[i] = text if "  " in lines[i] else _DOUBLE_SPACE.sub(" ", text)
        return out

    def _run_chunks(self, mode: str, lines: Sequence[str]) -> list[str]:
        """Translations of the leading ``lines`` whose framing came back intact."""
        pieces = self._run_mode(mode, "".join(_frame(line) for line in lines)).split("\0")
        good: list[str] = []
        for piece in pieces[: len(lines)]:
            text = _unframe(piece)
            if text is None:
                log.warning("apertium %s: framing lost after %d of %d chunks", mode, len(good), len(lines))
                break
            good.append(text)
        return good

    def _run_mode(self, mode: str, payload: str) -> str:
        if mode not in self._modes:
            raise EngineFailure(f"apertium mode {mode} is not installed")
        timeout = self.timeout_s + len(payload) / 20_000
        return self._call(["-z", "-f", "none", "-u", mode], payload, timeout=timeout)

    def _call(self, args: list[str], stdin: str, *, timeout: float) -> str:
        """Run the launcher; map every way it can fail onto the engine errors."""
        cmd = [self.binary, *(["-d", self.data_dir] if self.data_dir else []), *args]
        try:
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # lets a timeout kill the whole pipeline
            )
        except OSError as exc:
            raise EngineUnavailable(f"cannot run {self.binary}: {exc}") from exc
        try:
            out, err = proc.communicate(stdin.encode("utf-8"), timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            _kill_group(proc)
            raise EngineTimeout(f"apertium {' '.join(args)} took over {timeout:.0f} s") from exc
        if proc.returncode != 0:
            detail = err.decode("utf-8", "replace").strip()[-500:]
            raise EngineFailure(
                f"apertium {' '.join(args)} exited with {proc.returncode}: {detail}"
            ) from subprocess.CalledProcessError(proc.returncode, cmd, out, err)
        return out.decode("utf-8", "replace")


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the launcher and every pipeline stage it started."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate()
