"""Runs the configured grammar engines on a text and merges their answers.

Plain Python (the ``Grammar`` deployment adds only Serve concerns), so tests
and benchmarks use it in-process. Long texts are cut into chunks of whole
sentences (``chunk_chars``) that run in a small thread pool: Harper, Hunspell
and the ONNX tagger release the GIL, so chunks and engines overlap on both
cores; engines that must see the whole text (quotes and brackets pair across
sentences) get it whole.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from engines.errors import EngineFailure
from engines.grammar import precision, variants
from engines.grammar.base import GrammarEngine
from engines.grammar.detect import LanguageDetector
from engines.grammar.merge import corrected, quality_score, select
from engines.grammar.text import chunks, words
from engines.grammar.types import ISSUE_TYPES, CheckOptions, Domain, Issue, IssueType, Rule, Severity

#: Chunk size and pool threads when the deployment's settings give none (``GrammarArgs`` reads these).
DEFAULT_CHUNK_CHARS = 2000
DEFAULT_WORKERS = 2

#: Engines that check spelling, and engines with grammar rules of their own (our portable rules are everywhere).
SPELLING_ENGINES = frozenset({"hunspell", "harper", "grammalecte", "languagetool", "languagetool-server", "voikko"})
GRAMMAR_ENGINES = frozenset({"harper", "quire", "grammalecte", "languagetool", "languagetool-server", "voikko"})


@dataclasses.dataclass(frozen=True)
class GrammarRequest:
    """A validated check (``lang`` None: detect it)."""

    text: str
    lang: str | None = None
    auto_correct: bool = False
    check_types: frozenset[str] = frozenset(ISSUE_TYPES)
    min_severity: Severity = "warning"
    disabled_rules: frozenset[str] = frozenset()
    domain: Domain = "general"


@dataclasses.dataclass(frozen=True)
class GrammarResult:
    """``lang``: the given or detected code; ``variant``: the code the engines checked in (``pt`` → ``pt-BR``)."""

    issues: tuple[Issue, ...]
    corrected: str | None
    lang: str
    quality_score: float
    variant: str | None = None


@dataclasses.dataclass(frozen=True)
class LanguageSupport:
    """What is checked in one language, and by which engines."""

    code: str
    spelling: bool
    grammar: bool
    style: bool
    engines: tuple[str, ...]
    types: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class Catalogue:
    """Every rule and every grammar language (what ``GET /v1/grammar/rules`` lists)."""

    rules: tuple[Rule, ...]
    languages: tuple[LanguageSupport, ...]
    open_prefixes: tuple[str, ...] = ()

    @functools.cached_property
    def rule_ids(self) -> frozenset[str]:
        return frozenset(r.id for r in self.rules)

    def valid_rule(self, rule_id: str) -> bool:
        return rule_id in self.rule_ids or any(rule_id.startswith(p) for p in self.open_prefixes)


class GrammarChecker:
    """Args: started engines; ``chunk_chars`` per chunk of a long text; ``workers`` threads."""

    def __init__(self, engines: Sequence[GrammarEngine], *, chunk_chars: int, workers: int) -> None:
        self.engines = list(engines)
        self.chunk_chars = chunk_chars
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="grammar")
        self.catalogue = self._catalogue()
        self.detector = LanguageDetector(s.code for s in self.catalogue.languages)
        self._priorities = {e.name: e.priority for e in self.engines}
        self._warm_up(workers)
        # A rule id shared by several engines (REPEATED_WORD...) has one type: our catalogue's.
        self._types = {r.id: r.type for e in self.engines if e.name == "grammar-rules" for r in e.rules()}

    def supports(self, lang: str) -> bool:
        return lang in {s.code for s in self.catalogue.languages}

    def check(self, request: GrammarRequest, stop: threading.Event | None = None) -> GrammarResult:
        """Check ``request``; setting ``stop`` (the caller gave up) drops its chunks not yet started and raises
        :class:`CheckStopped` at the next chunk, so abandoned checks cannot pile up in the pool."""
        lang = request.lang or self.detect(request.text)
        variant = self.variant(lang, request.text)
        options = CheckOptions(variant, request.check_types, request.domain, request.disabled_rules)
        found = self._run(request.text, options, stop)
        issues = select(
            found,
            check_types=request.check_types,
            disabled=request.disabled_rules,
            min_severity=request.min_severity,
            priorities=self._priorities,
        )
        fixed = corrected(request.text, issues) if request.auto_correct else None
        score = quality_score(issues, sum(1 for _ in words(request.text)))
        return GrammarResult(tuple(issues), fixed, lang, score, variant)

    def detect(self, text: str) -> str:
        code, _probability = self.detector.detect(text)
        return code

    def variant(self, lang: str, text: str) -> str:
        """The code ``text`` in ``lang`` is checked in: a bare language with regional variants (``pt``, ``en``)
        becomes the variant the text's markers show, else the default one (engines/grammar/variants.py)."""
        return variants.resolve(lang, text, (s.code for s in self.catalogue.languages))

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        for engine in self.engines:
            engine.shutdown()

    def _warm_up(self, workers: int) -> None:
        """One check per pool thread, so per-thread state (Harper builds a linter per thread, about a second)
        is ready before the first request rather than during it."""
        barrier = threading.Barrier(workers)
        sample = CheckOptions("en")

        def warm() -> None:
            for engine in self.engines:
                if _serves(engine, "en"):
                    engine.check("A warm up sentence.", sample)
            barrier.wait(timeout=60)  # keeps this thread busy so every worker thread warms once

        for future in [self._pool.submit(warm) for _ in range(workers)]:
            future.result()

    def _run(self, text: str, options: CheckOptions, stop: threading.Event | None = None) -> list[Issue]:
        futures: list[tuple[int, Future[list[Issue]]]] = []
        for engine in self.engines:
            if not _serves(engine, options.lang) or (engine.name == "hunspell" and "spelling" not in options.check_types):
                continue
            size = engine.chunk_chars or self.chunk_chars
            pieces = chunks(text, size) if engine.chunkable and len(text) > size else None
            for start, piece in [(p.start, p.text) for p in pieces] if pieces else [(0, text)]:
                futures.append((start, self._pool.submit(engine.check, piece, options)))
        found = [issue.shifted(start) for start, future in futures for issue in _result(future, futures, stop)]
        typed = [dataclasses.replace(i, type=kind) if (kind := self._type_of(i)) != i.type else i for i in found]
        spellers = frozenset(e.name for e in self.engines if e.name in SPELLING_ENGINES and _spells(e, options.lang))
        return precision.apply(typed, text, options.lang, spellers)

    def _type_of(self, issue: Issue) -> IssueType:
        """A shared check has one type, our catalogue's, whichever engine finds it (by its id or the ids it is an instance of)."""
        for rule_id in (issue.rule_id, *issue.also):
            if rule_id in self._types:
                return self._types[rule_id]
        return issue.type

    def _catalogue(self) -> Catalogue:
        rules: dict[str, Rule] = {}
        for engine in self.engines:
            for rule in engine.rules():
                known = rules.get(rule.id)
                languages = (
                    tuple(sorted({*known.languages, *rule.languages})) if known and known.languages and rule.languages else ()
                )
                rules[rule.id] = dataclasses.replace(known or rule, languages=languages if known else rule.languages)
        open_prefixes = tuple(r.id[:-1] for r in rules.values() if r.id.endswith("*"))
        return Catalogue(tuple(sorted(rules.values(), key=lambda r: r.id)), self._languages(), open_prefixes)

    def _languages(self) -> tuple[LanguageSupport, ...]:
        style = set()
        for engine in self.engines:
            style |= set(getattr(engine, "style_languages", frozenset)())
        if any(e.name == "harper" for e in self.engines):
            style |= {"en"}
        codes = {code for e in self.engines if e.name in SPELLING_ENGINES | GRAMMAR_ENGINES for code in e.languages()}
        out = []
        for code in sorted(codes):
            serving = [e for e in self.engines if _serves(e, code)]
            names = tuple(sorted(e.name for e in serving))
            grammar = any(e.name in GRAMMAR_ENGINES and _grammar_in(e, code) for e in serving)
            types = {r.type for e in serving for r in e.rules() if r.default_on and _rule_serves(r, code)}
            out.append(
                LanguageSupport(
                    code,
                    spelling=any(e.name in SPELLING_ENGINES and _spells(e, code) for e in serving),
                    grammar=grammar,
                    style=code.split("-")[0] in style,
                    engines=names,
                    types=tuple(t for t in ISSUE_TYPES if t in types),
                )
            )
        return tuple(out)


def _spells(engine: GrammarEngine, lang: str) -> bool:
    languages = getattr(engine, "spelling_languages", engine.languages)()
    return lang in languages or lang.split("-")[0] in languages


def _grammar_in(engine: GrammarEngine, lang: str) -> bool:
    """Whether ``engine`` has grammar rules for ``lang`` (an engine may check only spelling in some)."""
    languages = getattr(engine, "grammar_languages", engine.languages)()
    return lang in languages or lang.split("-")[0] in languages


def _rule_serves(rule: Rule, lang: str) -> bool:
    return rule.serves(lang)


def _serves(engine: GrammarEngine, lang: str) -> bool:
    languages = engine.languages()
    return lang in languages or lang.split("-")[0] in languages


class CheckStopped(EngineFailure):
    """A check whose caller gave up (its deadline passed): its remaining chunks were dropped."""


#: How often a waiting check looks at its stop flag.
_STOP_POLL_S = 0.25


def _result(
    future: Future[list[Issue]], futures: Sequence[tuple[int, Future[list[Issue]]]], stop: threading.Event | None
) -> list[Issue]:
    """``future``'s issues; once ``stop`` is set, every chunk of the check not yet running is cancelled."""
    while True:
        if stop is not None and stop.is_set():
            for _start, pending in futures:
                pending.cancel()
            raise CheckStopped("the grammar check was stopped: its caller gave up")
        try:
            return future.result(timeout=None if stop is None else _STOP_POLL_S)
        except TimeoutError:
            continue
