"""The text-safety layer every translator engine runs inside.

Engines translate words; this layer guarantees what the product promises
about everything else: placeholders, tags, line breaks and emoji come back
exactly once, glossary terms come back exactly as configured, each segment
keeps its surrounding whitespace and its number of lines. When the primary
engine fails, or mangles a segment beyond repair, the optional fallback
engine answers the whole request, so one response never mixes two engines.
Translation memory examples travel with their segments and are shown with
their markup as the same sentinels.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import repeat
from typing import Protocol

from engines.errors import (
    EngineError,
    EngineFailure,
    EngineUnavailable,
    InvalidInput,
    UnsupportedLanguage,
)
from engines.translation import icu
from engines.translation.base import (
    TranslationRequest,
    TranslationResult,
    TranslatorEngine,
)
from engines.translation.glossary import Glossary
from engines.translation.markup import find_spans, markup_counts
from engines.translation.protect import (
    GLOSSARY,
    SENTINEL,
    Protected,
    Restored,
    protect,
    restore,
    verify,
)

log = logging.getLogger(__name__)

# Errors after which another engine may still succeed; any other
# InvalidInput is about the request itself and goes straight back.
_RETRYABLE = (UnsupportedLanguage, EngineUnavailable, EngineFailure)
_SENTINELS = re.compile(SENTINEL.format(r"\d+"))
_LINE_BREAK = re.compile(r"\r\n|\r|\n")

Pairs = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class _Segment:
    """One request text, ready for an engine: edges set aside, markup protected."""

    lead: str
    protected: Protected
    trail: str

    @property
    def needs_engine(self) -> bool:
        """False when nothing but sentinels and punctuation is left to translate."""
        return any(ch.isalnum() for ch in _SENTINELS.sub("", self.protected.text))


@dataclass(frozen=True)
class _Outcome:
    """An engine's result after restoration, and the segments that failed checks."""

    result: TranslationResult
    problems: tuple[str, ...]

    def as_fallback(self) -> TranslationResult:
        return replace(self.result, fallback=True)


class TranslationObserver(Protocol):
    """Where engine timings and hand-overs are reported (the deployment passes its metrics)."""

    def engine_latency(self, engine: str, source: str, target: str, seconds: float) -> None: ...

    def engine_fallback(self, engine: str, source: str, target: str, reason: str) -> None: ...


class _Unobserved:
    def engine_latency(self, engine: str, source: str, target: str, seconds: float) -> None:
        pass

    def engine_fallback(self, engine: str, source: str, target: str, reason: str) -> None:
        pass


class SafeTranslator:
    """Protect → glossary → engine → restore → verify, with a fallback engine."""

    def __init__(
        self,
        primary: TranslatorEngine,
        fallback: TranslatorEngine | None = None,
        observer: TranslationObserver | None = None,
    ) -> None:
        self.primary = primary
        self.fallback = fallback
        self.observer: TranslationObserver = observer or _Unobserved()
        self._fallbacks: dict[str, int] = {}
        self._lock = threading.Lock()

    def pairs(self) -> frozenset[tuple[str, str]]:
        """Pairs either engine serves."""
        extra = self.fallback.pairs() if self.fallback else frozenset()
        return self.primary.pairs() | extra

    def translate(
        self,
        request: TranslationRequest,
        glossary: Glossary | None = None,
        chain: Sequence[TranslatorEngine] | None = None,
    ) -> TranslationResult:
        """Translate; a segment holding ICU plural/select arguments goes out as its variants and comes back whole.

        Each variant gets its segment's memory examples (``request.examples``).
        """
        plans = [icu.plan(text, request.target_lang) for text in request.texts]
        if not any(plans):
            return self._translate(request, glossary, chain)
        units: list[str] = []
        examples: list[Pairs] = []
        slices: list[tuple[int, int]] = []
        for text, message, shown in zip(request.texts, plans, request.examples or repeat(()), strict=False):
            variants = message.leaves if message else (text,)
            slices.append((len(units), len(units) + len(variants)))
            units.extend(variants)
            examples.extend(shown for _ in variants)
        expanded = replace(request, texts=tuple(units), examples=tuple(examples) if request.examples else ())
        result = self._translate(expanded, glossary, chain)
        texts = tuple(
            message.render(result.texts[start:end]) if message else result.texts[start]
            for message, (start, end) in zip(plans, slices, strict=True)
        )
        return replace(result, texts=texts)

    def _translate(
        self,
        request: TranslationRequest,
        glossary: Glossary | None,
        chain: Sequence[TranslatorEngine] | None,
    ) -> TranslationResult:
        """Translate with every protected span and glossary term guaranteed in the output.

        ``chain`` is the engines to try in order (default: primary, then
        fallback). An engine that fails, or damages segments beyond repair,
        hands the request to the next; a later engine's answer is used only
        when it is cleaner than the best so far.

        Raises:
            InvalidInput: the glossary is for another language pair.
            EngineError: every engine failed (the last error).
        """
        if glossary is not None and not glossary.applies_to(request.source_lang, request.target_lang):
            raise InvalidInput(
                f"glossary {glossary.source_lang}->{glossary.target_lang} does not apply to "
                f"{request.source_lang}->{request.target_lang}"
            )
        engines = list(chain) if chain is not None else [e for e in (self.primary, self.fallback) if e is not None]
        if not engines:
            raise UnsupportedLanguage(
                f"no engine serves {request.source_lang}->{request.target_lang}",
                source=request.source_lang,
                target=request.target_lang,
            )
        segments = [_prepare(text, glossary) for text in request.texts]
        request = _examples_as_seen(_with_terms(request, segments))
        best: TranslationResult | None = None
        best_problems: tuple[str, ...] = ()
        error: EngineError | None = None
        for position, engine in enumerate(engines):
            try:
                outcome = self._attempt(engine, request, segments)
            except EngineError as exc:
                if not isinstance(exc, _RETRYABLE) and best is None and error is None:
                    raise
                log.warning("%s failed (%s)%s", engine.name, exc, _next(engines, position))
                self._count(engine.name, "failed", position, engines, request)
                error = exc
                continue
            result = outcome.as_fallback() if position > 0 else outcome.result
            if best is None or len(outcome.problems) < len(best_problems):
                best, best_problems = result, outcome.problems
            if not best_problems:
                break
            log.warning(
                "%s damaged %d segment(s) beyond repair (%s)%s",
                engine.name,
                len(outcome.problems),
                "; ".join(outcome.problems[:3]),
                _next(engines, position),
            )
            self._count(engine.name, "damaged", position, engines, request)
        if best is None:
            assert error is not None
            raise error
        _log_problems(best.engine, best_problems)
        return best

    def _count(
        self, engine: str, reason: str, position: int, engines: list[TranslatorEngine], request: TranslationRequest
    ) -> None:
        """Count hand-overs to the next engine (``stats()`` and the ``engine_fallbacks`` metric)."""
        if position + 1 < len(engines):
            key = f"{engine}_{reason}"
            with self._lock:
                self._fallbacks[key] = self._fallbacks.get(key, 0) + 1
            self.observer.engine_fallback(engine, request.source_lang, request.target_lang, reason)

    def stats(self) -> dict[str, int]:
        """Fallbacks since start, by engine and reason (``llm_failed``, ``apertium_damaged``...)."""
        with self._lock:
            return dict(self._fallbacks)

    def _attempt(self, engine: TranslatorEngine, request: TranslationRequest, segments: list[_Segment]) -> _Outcome:
        """Run one engine over the segments that need it and restore every segment."""
        todo = [i for i, s in enumerate(segments) if s.needs_engine]
        outputs = {i: s.protected.text for i, s in enumerate(segments)}
        result = TranslationResult((), engine=engine.name, route=(request.source_lang, request.target_lang))
        if todo:
            sub = replace(
                request,
                texts=tuple(segments[i].protected.text for i in todo),
                examples=_selected(request.examples, todo),
            )
            started = time.perf_counter()
            result = engine.translate(sub)
            elapsed = time.perf_counter() - started
            self.observer.engine_latency(engine.name, request.source_lang, request.target_lang, elapsed)
            if len(result.texts) != len(todo):
                raise EngineFailure(f"{engine.name} returned {len(result.texts)} texts for {len(todo)}")
            outputs.update(zip(todo, result.texts))
        texts, problems = [], []
        for i, segment in enumerate(segments):
            restored = restore(outputs[i], segment.protected)
            # The core was stripped of edge spaces; any now are the engine's.
            texts.append(segment.lead + restored.text.strip(" \t") + segment.trail)
            problem = _problem(segment, restored, outputs[i] if i in todo else None)
            if problem:
                problems.append(f"segment {i}: {problem}")
        return _Outcome(replace(result, texts=tuple(texts)), tuple(problems))


def _prepare(text: str, glossary: Glossary | None) -> _Segment:
    """Set aside the edges an engine would trim and protect the rest.

    Only spaces and tabs count as edges: a leading or trailing line break
    is protected like any other, which keeps the line count.
    """
    core = text.strip(" \t")
    lead = text[: len(text) - len(text.lstrip(" \t"))]
    trail = text[len(lead) + len(core) :]
    terms = glossary.matches(core) if glossary else []
    return _Segment(lead, protect(core, terms), trail)


def _problem(segment: _Segment, restored: Restored, output: str | None) -> str | None:
    """Why a restored segment cannot be trusted, or None when it can.

    ``output`` is the engine's raw text, None when the segment skipped the engine.
    """
    report = restored.report
    source = segment.protected.source
    if not report.repairable:
        return f"lost {len(report.missing)} of {report.total} protected spans"
    if not verify(restored.text, segment.protected):
        return "markup or glossary terms differ from the source after repair"
    if len(_LINE_BREAK.findall(restored.text)) != len(_LINE_BREAK.findall(source)):
        return "line count changed"
    if output is not None and not any(ch.isalnum() for ch in _SENTINELS.sub("", output)):
        return "no words in the translation"
    return None


def _next(engines: list[TranslatorEngine], position: int) -> str:
    return f"; trying {engines[position + 1].name}" if position + 1 < len(engines) else ""


def _with_terms(request: TranslationRequest, segments: list[_Segment]) -> TranslationRequest:
    """Tell engines that read hints (the LLM) what each glossary token stands for."""
    terms: list[tuple[str, str]] = []
    for number, segment in enumerate(segments, 1):
        for i, span in enumerate(segment.protected.spans):
            if span.kind == GLOSSARY and span.replacement is not None:
                where = f" (segment {number})" if len(segments) > 1 else ""
                terms.append((SENTINEL.format(i) + where, span.replacement))
    if not terms:
        return request
    return replace(request, hints=replace(request.hints, terms=tuple(terms)))


def _examples_as_seen(request: TranslationRequest) -> TranslationRequest:
    """Memory examples as engines see real text: outer spaces and tabs set aside, markup as sentinels.

    A pair whose source and target hold different markup, or that is an ICU
    message, is not shown: it would teach the model to drop or add tokens,
    or to answer in ICU syntax for one variant.
    """
    if not request.examples:
        return request
    shown = tuple(tuple(seen for seen in map(_example_as_seen, pairs) if seen) for pairs in request.examples)
    return replace(request, examples=shown if any(shown) else ())


def _example_as_seen(pair: tuple[str, str]) -> tuple[str, str] | None:
    """``("Open the {0} door", "Abre la puerta {0}")`` → ``("Open the <x0/> door", "Abre la puerta <x0/>")``.

    Sentinels are numbered in the source's order, as ``protect`` numbers a
    request's; each target span gets the number of the same span in the source.
    """
    source, target = pair[0].strip(" \t"), pair[1].strip(" \t")
    if not source or not target or markup_counts(source) != markup_counts(target):
        return None
    if icu.plan(source) is not None or icu.plan(target) is not None:
        return None
    protected = protect(source)
    numbers: dict[str, list[int]] = {}
    for i, span in enumerate(protected.spans):
        numbers.setdefault(span.text, []).append(i)
    parts: list[str] = []
    pos = 0
    for span in find_spans(target):
        parts += [target[pos : span.start], SENTINEL.format(numbers[span.text].pop(0))]
        pos = span.end
    parts.append(target[pos:])
    return protected.text, "".join(parts)


def _selected(examples: tuple[Pairs, ...], todo: list[int]) -> tuple[Pairs, ...]:
    """The examples of the segments in ``todo``; empty when none of them has any."""
    picked = tuple(examples[i] for i in todo) if examples else ()
    return picked if any(picked) else ()


def _log_problems(engine: str, problems: tuple[str, ...]) -> None:
    if problems:
        log.warning("%s output kept after repair: %s", engine, "; ".join(problems[:3]))
