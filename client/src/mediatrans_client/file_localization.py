"""Translate every string of a localization file with as few ``POST /v1/game/localization`` calls as possible.

The endpoint keeps line breaks line for line, so strings without a length limit travel together:
joined by line breaks into batches of at most 50,000 characters (the request limit), each string
owning as many lines as it has. If an answer ever comes back with a different line count, that
batch's strings are sent again one by one. A ``max_length`` applies to a request's whole text, so a
string with a limit (its own, from the file, or the command's) is sent alone and the service's
``shortened`` list says whether it had to be cut. Identical strings are translated once.

A target language the service refuses (400 1002) does not sink the others: it is dropped from the
run and listed in the report's ``failed``, and every other target is still translated.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from mediatrans_client._target_refusals import LiveTargets
from mediatrans_client.errors import MediatransError
from mediatrans_client.l10n import Catalog, Entry, Translated
from mediatrans_client.models import LocalizationResult
from mediatrans_client.types import ContentType, Tone

MAX_REQUEST_CHARS = 50_000

ProgressFn = Callable[[int, int], None]  # (characters done, characters in all)


class Localizer(Protocol):
    def localize(
        self,
        text: str,
        source_lang: str,
        target_langs: Sequence[str],
        *,
        content_type: ContentType = "ui",
        genre: str | None = None,
        max_length: int | None = None,
        tone: Tone | None = None,
        glossary_id: str | None = None,
        context: str | None = None,
        instructions: Sequence[str] | None = None,
        glossary_ids: Sequence[str] | None = None,
        memory_id: str | None = None,
    ) -> LocalizationResult: ...


@dataclass(frozen=True)
class Segment:
    """One text to translate: a source or plural form, with the limit that applies to it."""

    text: str
    max_length: int | None

    @property
    def lines(self) -> int:
        return self.text.count("\n") + 1


@dataclass(frozen=True)
class LengthHit:
    key: str
    lang: str
    max_length: int
    source: str
    translation: str


@dataclass
class LocalizationReport:
    """What a run produced; ``translations`` holds only the targets that were translated."""

    translations: dict[str, dict[str, Translated]]
    requests: int = 0
    characters: int = 0  # characters sent (each counted once, whatever the number of targets)
    billed_characters: int = 0  # characters x targets of the answered requests (refused ones are not charged)
    strings: int = 0
    untranslatable: int = 0
    shortened: list[LengthHit] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (key, reason)
    failed: dict[str, MediatransError] = field(default_factory=dict)  # target -> why the service refused it
    from_memory: dict[str, int] = field(default_factory=dict)  # target -> texts answered from the memory (memory_id)

    @property
    def succeeded(self) -> list[str]:
        """The targets translated (the keys of ``translations``)."""
        return list(self.translations)


def segments_of(entry: Entry, default_limit: int | None) -> list[Segment]:
    """The texts of ``entry`` to translate (source, then plural), each with the limit that applies."""
    limit = entry.max_length if entry.max_length is not None else default_limit
    texts = [entry.source] if entry.source_plural is None else [entry.source, entry.source_plural]
    return [Segment(text.replace("\r\n", "\n"), limit) for text in texts]


def plan_batches(segments: Sequence[Segment], max_chars: int = MAX_REQUEST_CHARS) -> list[list[Segment]]:
    """Unlimited segments packed in order into joined texts of at most ``max_chars``; limited ones alone."""
    batches: list[list[Segment]] = []
    current: list[Segment] = []
    size = 0
    for segment in segments:
        if segment.max_length is not None:
            batches.append([segment])
            continue
        added = len(segment.text) + (1 if current else 0)
        if current and size + added > max_chars:
            batches.append(current)
            current, size = [], 0
            added = len(segment.text)
        current.append(segment)
        size += added
    if current:
        batches.append(current)
    return batches


class FileLocalizer:
    """Runs the batches of one catalog through a client's ``game`` endpoint group, a few at a time."""

    def __init__(
        self,
        game: Localizer,
        source_lang: str,
        target_langs: Sequence[str],
        *,
        content_type: ContentType = "ui",
        max_length: int | None = None,
        max_chars: int = MAX_REQUEST_CHARS,
        concurrency: int = 4,
        **options: Any,
    ) -> None:
        if not 1 <= max_chars <= MAX_REQUEST_CHARS:
            raise ValueError(f"max_chars must be 1-{MAX_REQUEST_CHARS}")
        self.game = game
        self.source_lang = source_lang
        self.target_langs = list(dict.fromkeys(target_langs))
        self.content_type = content_type
        self.max_length = max_length
        self.max_chars = max_chars
        self.concurrency = max(1, concurrency)
        self.options = {name: value for name, value in options.items() if value is not None}
        self._lock = threading.Lock()
        self._targets = LiveTargets(self.target_langs)

    def plan(self, catalog: Catalog) -> tuple[LocalizationReport, list[list[Segment]]]:
        """An empty report (counts and skipped strings filled in) and the batches that would be sent."""
        report = LocalizationReport({lang: {} for lang in self.target_langs})
        wanted: dict[Segment, None] = {}
        for entry in catalog.entries:
            if not entry.translatable:
                report.untranslatable += 1
                continue
            report.strings += 1
            for segment in segments_of(entry, self.max_length):
                if len(segment.text) > MAX_REQUEST_CHARS:
                    report.skipped.append((entry.key, f"longer than {MAX_REQUEST_CHARS} characters"))
                elif segment.text.strip():
                    wanted[segment] = None
        return report, plan_batches(list(wanted), self.max_chars)

    def run(self, catalog: Catalog, on_progress: ProgressFn | None = None) -> LocalizationReport:
        """Translate every batch; targets the service refuses end up in ``failed``, the others in ``translations``."""
        report, batches = self.plan(catalog)
        self._targets = LiveTargets(self.target_langs)
        done: dict[Segment, dict[str, str]] = {}
        shortened: set[tuple[Segment, str]] = set()
        total = sum(len(s.text) for batch in batches for s in batch)
        progress = [0]

        def work(batch: list[Segment]) -> None:
            self._translate(batch, done, shortened, report)
            with self._lock:
                progress[0] += sum(len(s.text) for s in batch)
                if on_progress is not None:
                    on_progress(progress[0], total)

        with ThreadPoolExecutor(self.concurrency) as pool:
            for future in [pool.submit(work, batch) for batch in batches]:
                future.result()  # the first failure propagates (nothing is written then)
        report.failed = dict(self._targets.refused)
        for lang in report.failed:
            report.translations.pop(lang, None)
            report.from_memory.pop(lang, None)
        skipped = {key for key, _ in report.skipped}
        for entry in catalog.entries:
            if entry.translatable and entry.key not in skipped:
                self._collect(entry, done, shortened, report)
        return report

    def _request(
        self, text: str, max_length: int | None, report: LocalizationReport
    ) -> tuple[LocalizationResult, list[str]] | None:
        """The answer for the targets still live, and those targets; None when every target was refused."""
        options = dict(self.options)
        if max_length is not None:
            options["max_length"] = max_length

        def send(targets: list[str]) -> LocalizationResult:
            with self._lock:
                report.requests += 1
                report.characters += len(text)
            result = self.game.localize(text, self.source_lang, targets, content_type=self.content_type, **options)
            with self._lock:
                report.billed_characters += len(text) * len(targets)
            return result

        return self._targets.send(send)

    def _translate(
        self,
        batch: list[Segment],
        done: dict[Segment, dict[str, str]],
        shortened: set[tuple[Segment, str]],
        report: LocalizationReport,
    ) -> None:
        answer = self._request("\n".join(s.text for s in batch), batch[0].max_length, report)
        if answer is None:
            return
        result, targets = answer
        if len(batch) == 1:
            done[batch[0]] = {lang: result.translations.get(lang, batch[0].text) for lang in targets}
            for lang in result.shortened or []:
                shortened.add((batch[0], lang))
            self._count_memory(batch, result, targets, report)
            return
        split = {lang: result.translations.get(lang, "").split("\n") for lang in targets}
        if any(len(lines) != sum(s.lines for s in batch) for lines in split.values()):
            for segment in batch:  # the line structure was not kept: one request per string
                self._translate([segment], done, shortened, report)
            return
        start = 0
        for segment in batch:
            done[segment] = {lang: "\n".join(lines[start : start + segment.lines]) for lang, lines in split.items()}
            start += segment.lines
        self._count_memory(batch, result, targets, report)

    def _count_memory(
        self, batch: list[Segment], result: LocalizationResult, targets: list[str], report: LocalizationReport
    ) -> None:
        """Count, per target, the texts of ``batch`` whose every line the service answered from the memory."""
        for lang in targets:
            answered = set((result.from_memory or {}).get(lang) or [])
            if not answered:
                continue
            start, hits = 0, 0
            for segment in batch:
                hits += all(line in answered for line in range(start, start + segment.lines))
                start += segment.lines
            with self._lock:
                report.from_memory[lang] = report.from_memory.get(lang, 0) + hits

    def _collect(
        self,
        entry: Entry,
        done: dict[Segment, dict[str, str]],
        shortened: set[tuple[Segment, str]],
        report: LocalizationReport,
    ) -> None:
        segments = segments_of(entry, self.max_length)
        for lang in report.translations:
            texts = [done[s].get(lang, s.text) if s in done else s.text for s in segments]
            plural = texts[1] if len(texts) > 1 else None
            report.translations[lang][entry.key] = Translated(texts[0], plural)
            for segment, text in zip(segments, texts):
                if (segment, lang) in shortened and segment.max_length is not None:
                    report.shortened.append(LengthHit(entry.key, lang, segment.max_length, segment.text, text))
