"""Finnish spelling and Voikko's grammar checks (Debian ``libvoikko1`` + ``voikko-fi``).

Finnish builds words by compounding and some fifteen cases with possessive and
clitic suffixes, which a Hunspell word list cannot hold; Voikko analyses each
word with a morphology of the language (the checker LibreOffice uses for
Finnish). The library is called through ``ctypes`` (its own Python binding
is packaged for the system Python only); a handle is not thread-safe, so each
call holds the engine's lock. Positions of Voikko's grammar errors are in
code points (its UCS-4 interface), like the API's offsets.

Voikko's grammar checker has 17 checks, mostly spacing, punctuation and
capitals; its few grammar checks (a negative with the wrong verb form, the
infinitive after some verbs) are errors, and its heuristics (a sentence with
no main verb, a verb that may lack a comma) only ``info``. Titles,
unfinished paragraphs and list items are accepted (a game line needs no full stop).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
from typing import Any

from pydantic import Field

from engines.errors import EngineUnavailable
from engines.grammar.base import GrammarEngine
from engines.grammar.equivalents import rule_id
from engines.grammar.hunspell_engine import MAX_SUGGESTIONS, SPELLING, unchecked_word
from engines.grammar.text import words
from engines.grammar.types import CheckOptions, Issue, IssueType, Rule, Severity
from engines.options import EngineOptions

PREFIX = "FI_VOIKKO"
#: Voikko grammar error code → (rule name, issue type, severity, description). Code 1 (a misspelling
#: inside the grammar check) is left to the speller.
CHECKS: dict[int, tuple[str, IssueType, Severity, str]] = {
    2: ("EXTRA_WHITESPACE", "punctuation", "warning", "Remove extra space."),
    3: ("SPACE_BEFORE_PUNCTUATION", "punctuation", "warning", "Remove space before punctuation."),
    4: ("EXTRA_COMMA", "punctuation", "warning", "Remove extra comma."),
    5: ("INVALID_SENTENCE_STARTER", "punctuation", "warning", "Invalid character at the start of a sentence."),
    6: ("WRITE_FIRST_LOWERCASE", "grammar", "info", "Consider changing the first letter to lower case."),
    7: ("WRITE_FIRST_UPPERCASE", "grammar", "warning", "Change the first letter to upper case."),
    8: ("REPEATING_WORD", "grammar", "warning", "Remove duplicate word."),
    9: ("TERMINATING_PUNCTUATION_MISSING", "punctuation", "info", "Terminating punctuation is missing."),
    10: ("INVALID_PUNCTUATION_AT_END_OF_QUOTATION", "punctuation", "warning", "Invalid punctuation at the end of a quotation."),
    11: ("FOREIGN_QUOTATION_MARK", "punctuation", "info", "Finnish quotations use ” ” or » »."),
    12: ("MISPLACED_CLOSING_PARENTHESIS", "punctuation", "warning", "Misplaced closing parenthesis."),
    13: ("NEGATIVE_VERB_MISMATCH", "grammar", "error", "The negative verb and the main verb do not agree."),
    14: ("A_INFINITIVE_REQUIRED", "grammar", "error", "The second verb takes the infinitive ending in -a/-ä."),
    15: ("MA_INFINITIVE_REQUIRED", "grammar", "error", "The second verb takes the infinitive ending in -maan/-mään."),
    16: ("MISPLACED_SIDESANA", "grammar", "warning", "A sentence should not end with a conjunction."),
    17: ("MISSING_MAIN_VERB", "grammar", "info", "The sentence may lack a main verb."),
    18: ("EXTRA_MAIN_VERB", "grammar", "info", "The sentence may have an extra verb, or lack a comma."),
}
#: Voikko's boolean options (voikko.h) set at start.
_OPTIONS = {
    0: True,  # IGNORE_DOT: "esim." is a word
    1: True,  # IGNORE_NUMBERS
    6: True,  # ACCEPT_FIRST_UPPERCASE
    7: True,  # ACCEPT_ALL_UPPERCASE
    13: True,  # ACCEPT_TITLES_IN_GC
    14: True,  # ACCEPT_UNFINISHED_PARAGRAPHS_IN_GC
    16: True,  # ACCEPT_BULLETED_LISTS_IN_GC
}


class VoikkoOptions(EngineOptions):
    """Where Voikko's dictionaries are."""

    dictionary_path: str | None = Field(
        None, description="Folder with Voikko dictionaries; unset: the system's (/usr/lib/voikko, voikko-fi)."
    )


class VoikkoEngine(GrammarEngine):
    """Voikko through ctypes: Finnish spelling and grammar checks."""

    name = "voikko"
    priority = 15
    Options = VoikkoOptions
    options: VoikkoOptions

    def __init__(self, options: VoikkoOptions | None = None, /, **overrides: Any) -> None:
        super().__init__(options, **overrides)
        self._lib: Any = None
        self._handle: int | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        path = ctypes.util.find_library("voikko") or "libvoikko.so.1"
        try:
            lib = ctypes.CDLL(path)
        except OSError as exc:
            raise EngineUnavailable(f"libvoikko is not installed ({exc}); install libvoikko1 and voikko-fi") from exc
        _declare(lib)
        error = ctypes.c_char_p()
        folder = self.options.dictionary_path.encode() if self.options.dictionary_path else None
        handle = lib.voikkoInit(ctypes.byref(error), b"fi", folder)
        if not handle:
            reason = error.value.decode("utf-8", "replace") if error.value else "no Finnish dictionary"
            raise EngineUnavailable(f"Voikko could not start: {reason} (install voikko-fi)")
        for option, value in _OPTIONS.items():
            lib.voikkoSetBooleanOption(handle, option, int(value))
        self._lib, self._handle = lib, handle

    def languages(self) -> frozenset[str]:
        return frozenset({"fi"})

    def spelling_languages(self) -> frozenset[str]:
        return frozenset({"fi"})

    def grammar_languages(self) -> frozenset[str]:
        """None: Voikko has five grammar checks, under the twenty that count a language as grammar-checked."""
        return frozenset()

    def rules(self) -> list[Rule]:
        out = [Rule(SPELLING, "spelling", "error", "A word Voikko's Finnish morphology does not know.", self.name, ("fi",))]
        for name, kind, severity, description in CHECKS.values():
            out.append(Rule(rule_id("voikko", name, PREFIX), kind, severity, f"Voikko: {description}", self.name, ("fi",)))
        return out

    def shutdown(self) -> None:
        with self._lock:
            if self._lib is not None and self._handle:
                self._lib.voikkoTerminate(self._handle)
            self._handle = None

    def check(self, text: str, options: CheckOptions) -> list[Issue]:
        with self._lock:
            if not self._handle:
                raise EngineUnavailable("Voikko is not started")
            issues = self._grammar(text) if options.check_types - {"spelling"} else []
            if "spelling" in options.check_types:
                issues += self._spelling(text)
        return issues

    def _spelling(self, text: str) -> list[Issue]:
        issues = []
        for word in words(text):
            if unchecked_word(word.text) or self._spells(word.text):
                continue
            parts = [p for p in word.text.replace("’", "'").replace("-", "'").split("'") if p]
            if len(parts) > 1 and all(len(p) == 1 or self._spells(p) for p in parts):
                continue
            message = f"Possible spelling mistake: “{word.text}”."
            fixes = tuple(s for s in self._suggest(word.text) if s != word.text)
            issues.append(Issue(word.start, word.end - word.start, "spelling", "error", SPELLING, message, fixes, self.name))
        return issues

    def _spells(self, word: str) -> bool:
        return int(self._lib.voikkoSpellCstr(self._handle, word.encode("utf-8"))) == 1

    def _suggest(self, word: str) -> list[str]:
        found = self._lib.voikkoSuggestCstr(self._handle, word.encode("utf-8"))
        if not found:
            return []
        out = []
        for i in range(MAX_SUGGESTIONS):
            if not found[i]:
                break
            out.append(found[i].decode("utf-8", "replace"))
        self._lib.voikkoFreeCstrArray(found)
        return out

    def _grammar(self, text: str) -> list[Issue]:
        issues: list[Issue] = []
        skip = 0
        while True:
            error = self._lib.voikkoNextGrammarErrorUcs4(self._handle, text, len(text), 0, skip)
            if not error:
                return issues
            skip += 1
            try:
                code = int(self._lib.voikkoGetGrammarErrorCode(error))
                start = int(self._lib.voikkoGetGrammarErrorStartPos(error))
                length = int(self._lib.voikkoGetGrammarErrorLength(error))
                fixes = _strings(self._lib.voikkoGetGrammarErrorSuggestions(error))
            finally:
                self._lib.voikkoFreeGrammarError(error)
            if code not in CHECKS or start + length > len(text):
                continue
            name, kind, severity, description = CHECKS[code]
            catalogue_id = rule_id("voikko", name, PREFIX)
            issues.append(Issue(start, length, kind, severity, catalogue_id, description, fixes, self.name))


def _strings(array: Any) -> tuple[str, ...]:
    """A NULL-terminated array of UTF-8 strings the library still owns."""
    out = []
    for i in range(MAX_SUGGESTIONS):
        if not array or not array[i]:
            break
        out.append(array[i].decode("utf-8", "replace"))
    return tuple(out)


def _declare(lib: Any) -> None:
    """Argument and result types of the libvoikko functions used (voikko.h)."""
    p, c_int, c_size_t = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t
    strings = ctypes.POINTER(ctypes.c_char_p)
    lib.voikkoInit.argtypes, lib.voikkoInit.restype = [ctypes.POINTER(ctypes.c_char_p), ctypes.c_char_p, ctypes.c_char_p], p
    lib.voikkoTerminate.argtypes, lib.voikkoTerminate.restype = [p], None
    lib.voikkoSetBooleanOption.argtypes, lib.voikkoSetBooleanOption.restype = [p, c_int, c_int], c_int
    lib.voikkoSpellCstr.argtypes, lib.voikkoSpellCstr.restype = [p, ctypes.c_char_p], c_int
    lib.voikkoSuggestCstr.argtypes, lib.voikkoSuggestCstr.restype = [p, ctypes.c_char_p], strings
    lib.voikkoFreeCstrArray.argtypes, lib.voikkoFreeCstrArray.restype = [strings], None
    lib.voikkoNextGrammarErrorUcs4.argtypes = [p, ctypes.c_wchar_p, c_size_t, c_size_t, c_int]
    lib.voikkoNextGrammarErrorUcs4.restype = p
    lib.voikkoGetGrammarErrorCode.argtypes, lib.voikkoGetGrammarErrorCode.restype = [p], c_int
    lib.voikkoGetGrammarErrorStartPos.argtypes, lib.voikkoGetGrammarErrorStartPos.restype = [p], c_size_t
    lib.voikkoGetGrammarErrorLength.argtypes, lib.voikkoGetGrammarErrorLength.restype = [p], c_size_t
    lib.voikkoGetGrammarErrorSuggestions.argtypes, lib.voikkoGetGrammarErrorSuggestions.restype = [p], strings
    lib.voikkoFreeGrammarError.argtypes, lib.voikkoFreeGrammarError.restype = [p], None
