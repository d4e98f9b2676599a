"""The text-safety layer every translator engine runs inside.

Engines translate words; this layer guarantees what the product promises
about everything else: placeholders, tags, line breaks and emoji come back
exactly once, glossary terms come back exactly as configured, each segment
keeps its surrounding whitespace and its number of lines. When the primary
engine fails, or mangles a segment beyond repair, the optional fallback
engine answers the whole request, so one response never mixes two engines.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, replace

from deployments.engines.errors import (
    EngineError,
    EngineFailure,
    EngineUnavailable,
    InvalidInput,
    UnsupportedLanguage,
)
from deployments.engines.translation.base import (
    TranslationRequest,
    TranslationResult,
    TranslatorEngine,
)
from deployments.engines.translation.glossary import Glossary
from deployments.engines.translation.protect import (
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


class SafeTranslator:
    """Protect → glossary → engine → restore → verify, with a fallback engine."""

    def __init__(self, primary: TranslatorEngine, fallback: TranslatorEngine | None = None) -> None:
        self.primary = primary
        self.fallback = fallback

    def pairs(self) -> frozenset[tuple[str, str]]:
        """Pairs either engine serves."""
        extra = self.fallback.pairs() if self.fallback else frozenset()
        return self.primary.pairs() | extra

    def translate(self, request: TranslationRequest, glossary: Glossary | None = None) -> TranslationResult:
        """Translate with every protected span and glossary term guaranteed in the output.

        Raises:
            InvalidInput: the glossary is for another language pair.
            EngineError: the primary failed and there is no fallback, or both failed.
        """
        if glossary is not None and not glossary.applies_to(request.source_lang, request.target_lang):
            raise InvalidInput(
                f"glossary {glossary.source_lang}->{glossary.target_lang} does not apply to "
                f"{request.source_lang}->{request.target_lang}"
            )
        segments = [_prepare(text, glossary) for text in request.texts]
        try:
            outcome = self._attempt(self.primary, request, segments)
        except _RETRYABLE as exc:
            if self.fallback is None:
                raise
            log.warning("%s failed (%s); using fallback %s", self.primary.name, exc, self.fallback.name)
            return self._attempt(self.fallback, request, segments).as_fallback()
        if not outcome.problems or self.fallback is None:
            _log_problems(self.primary.name, outcome.problems)
            return outcome.result
        log.warning(
            "%s damaged %d segment(s) beyond repair (%s); using fallback %s",
            self.primary.name,
            len(outcome.problems),
            "; ".join(outcome.problems[:3]),
            self.fallback.name,
        )
        return self._fallback_after_damage(request, segments, outcome)

    def _fallback_after_damage(
        self, request: TranslationRequest, segments: list[_Segment], primary: _Outcome
    ) -> TranslationResult:
        """The fallback's answer, unless it fails or does no better than the repaired primary."""
        assert self.fallback is not None
        try:
            second = self._attempt(self.fallback, request, segments)
        except EngineError as exc:
            log.warning("fallback %s failed too (%s); keeping repaired %s output", self.fallback.name, exc, self.primary.name)
            return primary.result
        if len(second.problems) >= len(primary.problems):
            _log_problems(self.fallback.name, second.problems)
            return primary.result
        return second.as_fallback()

    def _attempt(self, engine: TranslatorEngine, request: TranslationRequest, segments: list[_Segment]) -> _Outcome:
        """Run one engine over the segments that need it and restore every segment."""
        todo = [i for i, s in enumerate(segments) if s.needs_engine]
        outputs = {i: s.protected.text for i, s in enumerate(segments)}
        result = TranslationResult((), engine=engine.name, route=(request.source_lang, request.target_lang))
        if todo:
            sub = replace(request, texts=tuple(segments[i].protected.text for i in todo))
            result = engine.translate(sub)
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


def _log_problems(engine: str, problems: tuple[str, ...]) -> None:
    if problems:
        log.warning("%s output kept after repair: %s", engine, "; ".join(problems[:3]))
