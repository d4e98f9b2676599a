"""LanguageTool's rules in-process, offline: PyPI ``lingotweaker`` (import ``lt_py``) and its data packs.

lingotweaker is a Rust port of LanguageTool's engine (LGPL-2.1-or-later) that
reads LanguageTool's own rule files, one PyPI package per language
(``lingotweaker-data-<lang>``, installed by ``make setup``). Each language runs
in a worker process of its own (``lingotweaker_worker.py``): loading a language
holds the interpreter lock for up to six seconds, so a first request in German
never pauses checks in English, and a language's memory is its process's
resident set. Languages start on first use (``preload`` at replica start);
when the loaded languages' memory passes ``memory_budget_mb``, the least
recently used idle ones are stopped.

Rule ids are LanguageTool's own (``EN_A_VS_AN``, ``MORFOLOGIK_RULE_EN_US``), so
ids users know from LanguageTool work in ``disable_rules``; ids that are one
check shared with other engines also answer to the shared id (``SPELLING``,
``REPEATED_WORD``: ``configs/grammar/equivalents.yaml``). LanguageTool's UTF-8
byte offsets become code-point offsets here.
"""

from __future__ import annotations

import bisect
import dataclasses
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import Field

from engines.errors import EngineFailure, EngineUnavailable
from engines.grammar import variants
from engines.grammar.base import GrammarEngine
from engines.grammar.equivalents import shared_ids
from engines.grammar.languagetool_rules import data_root, pack_rules, variant_rules
from engines.grammar.languagetool_types import LT_VARIANTS, classify, lt_code, lt_engine_args, plain_message
from engines.grammar.line_worker import LineWorker
from engines.grammar.types import CheckOptions, Issue, Rule
from engines.options import EngineOptions

WORKER = Path(__file__).with_name("lingotweaker_worker.py")
#: API code → data pack, for the contract languages LanguageTool has rules for, and their variants
#: (``en-GB``, ``pt-PT``, ``nl-BE``: rules and a speller of their own; ``fr-CA``, ``es-MX``, ``zh-TW``: the
#: language's rules).
PACKS = {
    **{c: c for c in ("ar", "ca", "da", "de", "el", "en", "es", "fa", "fr", "is", "it", "ja", "lt")},
    **{c: c for c in ("nl", "no", "pl", "pt", "ro", "ru", "sk", "sl", "sr", "sv", "tl", "uk", "zh")},
    **{c: c.split("-")[0] for c in ("en-US", "en-GB", "pt-BR", "pt-PT", "nl-BE", "fr-CA", "es-MX", "zh-CN", "zh-TW")},
}
#: A variant's own rules (``rules/pt-PT/``) by id where they are written in code, not in the pack's XML.
_VARIANT_SUFFIXES = {"_PT_PT": "pt-PT", "_PT_BR": "pt-BR", "_EN_US": "en-US", "_EN_GB": "en-GB"}
#: Grammar rules a language needs before its grammar counts as checked (lt has 3, sr 4; ja 735).
MIN_GRAMMAR_RULES = 20
#: Categories of rules LanguageTool itself marks as under test: reported as ``info`` only.
EXPERIMENTAL_CATEGORIES = frozenset({"TEST_NEW_FEATURES"})
#: Languages whose LanguageTool speller does not read the text the service gets (Serbian: Latin script
#: only, while the contract's Serbian is Cyrillic; ja, zh, fa: none); Hunspell spells there.
NO_SPELLER = frozenset({"sr", "ja", "zh", "fa"})
#: Loaded from the start: the language most requests are in.
DEFAULT_PRELOAD = ("en",)


class LingoTweakerOptions(EngineOptions):
    """Which languages, what is loaded at start, and the memory they may take."""

    languages: tuple[str, ...] = Field(
        tuple(PACKS), min_length=1, description="API codes checked (those whose data pack is installed)."
    )
    preload: tuple[str, ...] = Field(DEFAULT_PRELOAD, description="Languages started with the replica; others on first use.")
    memory_budget_mb: int = Field(
        2500, ge=300, description="Resident memory of loaded languages; past it, idle least-recently-used ones stop."
    )
    timeout_s: float = Field(30.0, gt=0, description="Longest wait for one language's load or one check.")


class _Language:
    """One language's worker, its lock and what it costs."""

    def __init__(self, code: str, timeout_s: float) -> None:
        started = time.monotonic()
        self.worker = LineWorker(
            [sys.executable, "-I", str(WORKER), *lt_engine_args(code)],
            label=f"the LanguageTool worker for {code}",
            timeout_s=timeout_s,
        )
        if not self.worker.ready.get("ready"):
            self.worker.stop()
            raise EngineUnavailable(f"LanguageTool rules for {code} could not be loaded")
        self.load_s = time.monotonic() - started
        self.rss_mb = int(self.worker.ready.get("rss_kb", 0)) / 1024
        self.busy = 0  # checks in flight (under the engine's registry lock)
        self.last_used = time.monotonic()


class LingoTweakerEngine(GrammarEngine):
    """LanguageTool's rules through lingotweaker, one worker process per loaded language."""

    name = "languagetool"
    priority = 25
    #: Small chunks: the worker checks two at once, one per core (1,000 English characters: 44 → 19 ms).
    chunk_chars = 500
    Options = LingoTweakerOptions
    options: LingoTweakerOptions

    def __init__(self, options: LingoTweakerOptions | None = None, /, **overrides: Any) -> None:
        super().__init__(options, **overrides)
        self._languages = frozenset(c for c in self.options.languages if c in PACKS and data_root(PACKS[c]) is not None)
        self._loaded: dict[str, _Language] = {}
        self._loading: dict[str, threading.Lock] = {}
        self._registry = threading.Lock()

    def start(self) -> None:
        if not self._languages:
            raise EngineUnavailable("no lingotweaker data pack is installed for the configured languages")
        for code in self.options.preload:
            if code in self._languages:
                self._language(code)

    def languages(self) -> frozenset[str]:
        return self._languages

    def loaded(self) -> dict[str, float]:
        """Loaded languages (by data pack) → resident memory in MB."""
        with self._registry:
            return {code: state.rss_mb for code, state in self._loaded.items()}

    def style_languages(self) -> frozenset[str]:
        """Languages with LanguageTool style or wordiness rules."""
        return frozenset(
            c for c in self._languages if any(kind in ("style", "wordiness") for kind, *_ in pack_rules(PACKS[c]).values())
        )

    def spelling_languages(self) -> frozenset[str]:
        return self._languages - NO_SPELLER

    def grammar_languages(self) -> frozenset[str]:
        """Languages with enough LanguageTool grammar rules to count as grammar-checked (not only spelling)."""
        return frozenset(
            c
            for c in self._languages
            if sum(1 for kind, *_ in pack_rules(PACKS[c]).values() if kind == "grammar") >= MIN_GRAMMAR_RULES
        )

    def rules(self) -> list[Rule]:
        """Every rule of the loaded packs; a variant's own rule lists the codes checked in that variant only
        (``POSSESSIVE_WITHOUT_ARTICLE``: ``pt-PT``), a common rule the language and all its variants."""
        by_id: dict[str, tuple[Rule, set[str]]] = {}
        for code in sorted(self._languages):
            pack = PACKS[code]
            own = variant_rules(pack)
            for rule_id, (kind, severity, name, on, category) in pack_rules(pack).items():
                if not _checks(code, _variants_of(rule_id, own), self._languages):
                    continue
                blank = Rule(rule_id, kind, severity, _describe(rule_id, name), self.name, (), on, category)
                by_id.setdefault(rule_id, (blank, set()))[1].add(code)
        return [dataclasses.replace(rule, languages=tuple(sorted(langs))) for rule, langs in by_id.values()]

    def health(self) -> None:
        """Healthy while any language can run: a worker that died is started again by the next request
        in its language, which is cheaper than restarting the whole replica."""

    def shutdown(self) -> None:
        with self._registry:
            states, self._loaded = list(self._loaded.values()), {}
        for state in states:
            state.worker.stop()

    def check(self, text: str, options: CheckOptions) -> list[Issue]:
        lang = variants.default(options.lang)  # a bare en or pt: its default variant (the checker passes one)
        code = lang if lang in self._languages else options.lang.split("-")[0]
        state = self._acquire(code)
        try:
            reply = state.worker.call({"text": text})
        finally:
            with self._registry:
                state.busy -= 1
        if "error" in reply:
            raise EngineFailure(f"LanguageTool failed on a {code} text")
        to_chars = char_offsets(text)
        issues = []
        for rule_id, offset, length, issue_type, category, message, suggestions in reply["matches"]:
            kind, severity = classify(issue_type, category)
            severity = "info" if category in EXPERIMENTAL_CATEGORIES else severity
            start, end = to_chars(offset), to_chars(offset + length)
            also = shared_ids("languagetool", rule_id)
            fixes = tuple(suggestions)
            issues.append(Issue(start, end - start, kind, severity, rule_id, plain_message(message), fixes, self.name, also))
        return issues

    def _acquire(self, code: str) -> _Language:
        """The language's running worker, marked busy (a busy language is never stopped)."""
        state = self._language(code)
        with self._registry:
            alive = state.worker.alive
            if not alive:  # it died (or was stopped): start it again
                self._loaded.pop(lt_code(code), None)
            else:
                state.busy += 1
                state.last_used = time.monotonic()
        return state if alive else self._acquire(code)

    def _language(self, code: str) -> _Language:
        key = lt_code(code)  # variants with the same rules (fr-CA, es-MX) share a worker
        with self._registry:
            state = self._loaded.get(key)
            loading = self._loading.setdefault(key, threading.Lock())
        if state is not None:
            return state
        with loading:  # concurrent first requests in one language wait for one load; other languages go on
            with self._registry:
                state = self._loaded.get(key)
            if state is None:
                state = _Language(code, self.options.timeout_s)
                with self._registry:
                    self._loaded[key] = state
                self._evict(keep=key)
        return state

    def _evict(self, keep: str) -> None:
        """Stops idle least-recently-used languages while the loaded ones pass the budget."""
        with self._registry:
            total = sum(s.rss_mb for s in self._loaded.values())
            for _, code in sorted((s.last_used, c) for c, s in self._loaded.items() if c != keep):
                state = self._loaded[code]
                if total <= self.options.memory_budget_mb:
                    break
                if state.busy == 0:
                    state.worker.stop()
                    del self._loaded[code]
                    total -= state.rss_mb


def _variants_of(rule_id: str, own: dict[str, frozenset[str]]) -> frozenset[str]:
    """The variant folders of a variant's own rule (empty: a rule of the language)."""
    if rule_id in own:
        return own[rule_id]
    return frozenset(v for suffix, v in _VARIANT_SUFFIXES.items() if rule_id.endswith(suffix))


def _checks(code: str, folders: frozenset[str], served: frozenset[str]) -> bool:
    """Whether a check in ``code`` may report a rule of ``folders`` (every check reports the language's rules).

    A variant's code reports its own folder's rules; a bare language code (``pt``, resolved per text) those of
    each variant it may be checked in; a rule of a variant no served code is checked in (``pt-MZ``, ``de-CH``)
    stays listed under the language's codes that name no variant of their own."""
    if not folders:
        return True
    language = code.split("-")[0]
    possible = {lt_code(v) for v in variants.table()[language].variants} if variants.has_variants(code) else {lt_code(code)}
    if possible & folders:
        return True
    reachable = {lt_code(c) for c in served if c.split("-")[0] == language}
    return not (reachable & folders) and lt_code(code) not in LT_VARIANTS


def _describe(rule_id: str, name: str) -> str:
    return f"LanguageTool: {name}." if name else f"LanguageTool rule {rule_id}."


def char_offsets(text: str) -> Callable[[int], int]:
    """UTF-8 byte offset in ``text`` → code-point offset (identity for ASCII text)."""
    if text.isascii():
        return lambda offset: offset
    starts: list[int] = []
    position = 0
    for character in text:
        starts.append(position)
        position += len(character.encode("utf-8"))
    starts.append(position)
    return lambda offset: bisect.bisect_left(starts, offset)
